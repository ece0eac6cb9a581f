/* fuzz_topo.c: libFuzzer target for the hwloc XML reader.
 *
 * Every input is read as an hwloc XML topology: malformed XML, cpusets and
 * nesting must be refused by Grove's own checks before the library that
 * builds the topology sees them (it aborts or crashes on some).  An
 * accepted topology is counted and built into a two-node cluster.  A
 * refusal must say why.  Built by scripts/fuzz, not by the Makefile's
 * test rules.
 *
 * It holds only the reader's call and the checks of what it accepts (the
 * entry point is fuzz_reader.h's): no TAP output, no checks that belong
 * in test_topo.c, no main().
 *
 * FUZZ_SEEDS: fluxion/hwloc-data
 * FUZZ_EXT: xml
 */
#include <stdlib.h>
#include <string.h>

#include "topo.h"
#include "fuzz_reader.h"

static void *fuzz_read(const char *data, size_t size, grove_error_t *err)
{
    return grove_topo_read_xml(data, size, "fuzz", err);
}

static void fuzz_accepted(void *obj)
{
    grove_topo_t *t = obj;
    grove_error_t err;
    (void)grove_topo_count(t, "core");
    (void)grove_topo_hostname(t);
    grove_graph_t *g = grove_topo_cluster("fuzz", t, "n[0-1]", 0, NULL, &err);
    grove_graph_destroy(g);
    grove_topo_destroy(t);
}
