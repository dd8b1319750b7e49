# Shared by Scripts/release and Scripts/install: builds the relocatable release binary and lays out
# an installation tree under a prefix. Source after Scripts/lib/setup.sh (which cds to the package root).
#
# The layout, relative to the prefix (the binary finds its templates at bin/../share/ipawrap/Templates):
#   bin/ipawrap
#   share/ipawrap/Templates/                       policy templates, toolkit.json, SDK catalog, schemas
#   share/man/man1/ipawrap.1, ipawrap.<command>.1   from the commands (argument-parser's generate-manual)
#   share/bash-completion/completions/ipawrap
#   share/zsh/vendor-completions/_ipawrap
#   share/fish/vendor_completions.d/ipawrap.fish

# Debian's runtime packages of the system libraries ipawrap links (what `Depends:` lists is
# computed from the binary by dpkg-shlibdeps; these are what a machine needs to run it).
RUNTIME_PACKAGES=(libzip4 libxml2 zlib1g libdeflate0)
# What Scripts/release needs beyond the build packages: dpkg-shlibdeps (dpkg-dev) and lintian.
RELEASE_PACKAGES=(dpkg-dev lintian)

# The `ipawrap` product as a release build with the Swift runtime linked in statically, so it runs
# where no Swift toolchain is installed. Prints the binary's path. More `swift build` arguments
# (`--scratch-path DIR`) may follow. The benchmarks time this binary too: the one users run.
build_release_binary() {
    swift build -c release --static-swift-stdlib "$@" --product ipawrap >&2
    echo "$(swift build -c release --static-swift-stdlib "$@" --show-bin-path)/ipawrap"
}

# The binary a benchmark times: IPAWRAP_BENCH_BIN when set (another build to compare, e.g. an older
# commit's), else the release binary, built in BENCH_SCRATCH_PATH (default .build) so a debug build
# elsewhere can run beside it.
bench_binary() {
    if [ -n "${IPAWRAP_BENCH_BIN:-}" ]; then
        echo "$IPAWRAP_BENCH_BIN"
    else
        build_release_binary --scratch-path "${BENCH_SCRATCH_PATH:-.build}" 2>/dev/null
    fi
}

# The date man pages carry: the last commit's, so the same commit gives the same pages.
source_date() {
    local epoch
    epoch="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"
    date -u -d "@$epoch" +%Y-%m-%d
}

# Man pages, one per command, generated from the command definitions by swift-argument-parser's
# generate-manual plugin (it builds the package's executables in debug mode and runs its tool on
# each). Prints the folder holding ipawrap*.1.
generate_man_pages() {
    swift package plugin generate-manual --configuration debug --multi-page \
        --date "$(source_date)" --section 1 --authors "the ipawrap authors" >&2
    local folder
    folder="$(swift build --show-bin-path)/../plugins/GenerateManual/outputs/ipawrap"
    [ -f "$folder/ipawrap.1" ] || folder=".build/plugins/GenerateManual/outputs/ipawrap"
    if [ ! -f "$folder/ipawrap.1" ]; then
        echo "release: generate-manual wrote no ipawrap.1 (looked in $folder)" >&2
        return 1
    fi
    echo "$folder"
}

# stage_layout BINARY MAN_FOLDER DESTINATION: lays out the installation tree in DESTINATION (the
# prefix as files go into it). Completions come from the binary itself.
stage_layout() {
    local binary="$1" man_folder="$2" destination="$3"
    install -d "$destination/bin" "$destination/share/ipawrap" "$destination/share/man/man1" \
        "$destination/share/bash-completion/completions" "$destination/share/zsh/vendor-completions" \
        "$destination/share/fish/vendor_completions.d"
    install -m 0755 "$binary" "$destination/bin/ipawrap"
    strip --strip-unneeded "$destination/bin/ipawrap" 2>/dev/null || true
    rm -rf "$destination/share/ipawrap/Templates"
    # Only the tracked files, so a scratch file in the checkout never ships.
    git ls-files -z Templates | while IFS= read -r -d '' file; do
        install -D -m 0644 "$file" "$destination/share/ipawrap/$file"
    done
    local page
    for page in "$man_folder"/ipawrap*.1; do
        install -m 0644 "$page" "$destination/share/man/man1/"
    done
    "$destination/bin/ipawrap" --generate-completion-script bash >"$destination/share/bash-completion/completions/ipawrap"
    "$destination/bin/ipawrap" --generate-completion-script zsh >"$destination/share/zsh/vendor-completions/_ipawrap"
    "$destination/bin/ipawrap" --generate-completion-script fish >"$destination/share/fish/vendor_completions.d/ipawrap.fish"
    chmod 0644 "$destination"/share/*/completions/ipawrap "$destination"/share/zsh/vendor-completions/_ipawrap \
        "$destination"/share/fish/vendor_completions.d/ipawrap.fish
}
