/* grovetest.h: small helpers shared by the C unit tests of R, the store and
 * acquisition (test_rv1.c, test_store.c, test_acquire.c): building a test
 * graph vertex by vertex and the text a graph is compared by.
 *
 * Header-only like tap.h, every helper static inline so a test that does
 * not use one gets no warning.  It must not hold assertions or test
 * tables: those stay in the test that owns them.
 */
#ifndef GROVE_GROVETEST_H
#define GROVE_GROVETEST_H

#include "graph.h"
#include "jgf.h"

/* Add a vertex of type with id and size under parent (GROVE_VID_NONE: a
 * root); its id. */
static inline grove_vid_t test_vertex(grove_graph_t *g, const char *type, int64_t id,
                                      int64_t size, grove_vid_t parent)
{
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = type;
    info.id = id;
    info.size = size;
    grove_vid_t v = grove_graph_add_vertex(g, &info);
    if (parent != GROVE_VID_NONE)
        grove_graph_add_child(g, parent, v, NULL, NULL);
    return v;
}

/* The graph with its state (statuses, tags, records) as compact JGF, new
 * text (caller frees): two graphs are the same when their texts are. */
static inline char *test_state_text(const grove_graph_t *g)
{
    return grove_jgf_write(g, GROVE_JGF_WITH_STATE | GROVE_JGF_COMPACT);
}

#endif
