# Times two commands in turn (A B A B ...) with GNU time, after one warm-up run of each, and prints
# for each the median wall seconds, CPU seconds (user + system) and peak RSS (the largest process),
# and the median of the pairwise wall-time ratios A/B (pairs keep the ratio meaningful when the
# machine's speed drifts). Sourced by the Scripts/bench-* scripts.
#   in_turn ROUNDS "LABEL A" "COMMAND A" "LABEL B" "COMMAND B"
# Each COMMAND is run by `sh -c`, its output thrown away; a failing run stops the script.
in_turn() {
    local rounds="$1" label_a="$2" command_a="$3" label_b="$4" command_b="$5"
    local log
    log="$(mktemp -d "${TMPDIR:-/tmp}/ipawrap-in-turn.XXXXXX")"
    one() {  # one NAME COMMAND: appends "wall cpu rss" of one run to $log/NAME
        /usr/bin/time -f "%e %U %S %M" -o "$log/time" sh -c "$2" >/dev/null 2>&1 \
            || { echo "in_turn: '$2' failed" >&2; tail -n 3 "$log/time" >&2; return 1; }
        tail -n 1 "$log/time" | awk '{ print $1, $2 + $3, $4 }' >>"$log/$1"
    }
    sh -c "$command_a" >/dev/null 2>&1 || { echo "in_turn: '$command_a' failed" >&2; rm -rf "$log"; return 1; }
    sh -c "$command_b" >/dev/null 2>&1 || { echo "in_turn: '$command_b' failed" >&2; rm -rf "$log"; return 1; }
    local round
    for round in $(seq 1 "$rounds"); do
        one a "$command_a" || { rm -rf "$log"; return 1; }
        one b "$command_b" || { rm -rf "$log"; return 1; }
    done
    median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
    local name label
    for name in a b; do
        label="$label_a"; [ "$name" = b ] && label="$label_b"
        printf '  %-28s wall %6.2f s   cpu %6.2f s   peak %5.0f MB\n' "$label" \
            "$(cut -d' ' -f1 "$log/$name" | median)" "$(cut -d' ' -f2 "$log/$name" | median)" \
            "$(cut -d' ' -f3 "$log/$name" | median | awk '{ print $1 / 1024 }')"
    done
    printf '  %s / %s: %.2f (median of %s pairs; load average %s)\n' "$label_a" "$label_b" \
        "$(paste -d' ' "$log/a" "$log/b" | awk '{ print $1 / ($4 > 0 ? $4 : 0.005) }' | median)" "$rounds" "$(cut -d' ' -f1-3 /proc/loadavg)"
    rm -rf "$log"
}
