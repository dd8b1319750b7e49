#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlsave.h>

/* xmlFree is a global function pointer, which Swift 6 sees as shared mutable state. */
static inline void ipawrap_xml_free(void *pointer) { xmlFree(pointer); }
