/* Foundation on Linux carries its own ICU; libxml2's ICU declarations would clash with it
   ('UErrorCode' has different definitions) in modules that import both. ipawrap never uses
   libxml2's ICU encoding support, so hide it before the headers that mention it. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlsave.h>

/* xmlFree is a global function pointer, which Swift 6 sees as shared mutable state. */
static inline void ipawrap_xml_free(void *pointer) { xmlFree(pointer); }
