/* topo_private.h: what topo.c and topo_xml.c share.  Not public API (not
 * installed).
 *
 * This header must not hold the topology type or its mapping (topo.c).
 */
#ifndef GROVE_TOPO_PRIVATE_H
#define GROVE_TOPO_PRIVATE_H

#include <stddef.h>

#include "error.h"

/* Check len bytes of hwloc XML at text before the topology library reads
 * it: well-formed XML, a <topology> root, known object types, bitmaps,
 * numbers and nesting as the export format has them.  0, or -1 with
 * EINVAL (err: "SOURCE:LINE: reason") or ENOMEM. */
int grovep_topo_xml_check(const char *text, size_t len, const char *source, grove_error_t *err);

#endif
