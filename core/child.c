/* child.c: what a child instance is given: the R it acquires from its
 * parent (R of the job it runs in, with a scheduling graph whose pools
 * have the sizes the job holds), and the first acquisition response that
 * hands it those resources (see acquire.h, "child instances").
 *
 * Workload: once per child instance started; linear in the job's picks
 * times the vertices of its graph.
 *
 * This file must not hold the acquisition state machine (acquire.c): a
 * child is given resources, it does not track them.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>

#include "acquire.h"
#include "json_private.h"
#include "util.h"

grove_rv1_t *grove_acquire_child_resources(const grove_graph_t *g, const grove_job_t *job,
                                           grove_error_t *err)
{
    grove_rv1_t *R =
        grove_rv1_from_job(g, job, GROVE_RV1_WITH_GRAPH | GROVE_RV1_GRAPH_WHOLE, err);
    if (!R)
        return NULL;
    const json_t *sc = grove_rv1_scheduling(R);
    json_t *copy = sc ? json_deep_copy(sc) : NULL;
    json_t *nodes = copy ? json_object_get(json_object_get(copy, "graph"), "nodes") : NULL;
    if (sc && !copy)
        return GROVEP_NULL_AFTER(grove_rv1_destroy, R, ENOMEM);
    /* pools the job holds in part: their size in the child is the part
     * (each node of the graph found by its containment path: an R's graph
     * is written short, without uuids) */
    grove_sym_t cont = grove_graph_sym_lookup(g, GROVE_CONTAINMENT);
    size_t i;
    json_t *node;
    json_array_foreach(nodes, i, node) {
        json_t *md = json_object_get(node, "metadata");
        json_t *path = json_object_get(json_object_get(md, "paths"), GROVE_CONTAINMENT);
        json_t *uuid = json_object_get(md, "uuid");
        grove_vid_t v = GROVE_VID_NONE;
        if (json_is_string(path) && cont != GROVE_SYM_NONE)
            v = grove_graph_find_path(g, cont, json_string_value(path));
        else if (json_is_string(uuid))
            v = grove_graph_find_uuid(g, json_string_value(uuid));
        if (v == GROVE_VID_NONE)
            continue;
        for (size_t k = 0; k < job->npicks; k++) {
            const grove_pick_t *pk = &job->picks[k];
            if (pk->v == v && !pk->exclusive && pk->amount < grove_vertex_size(g, v)) {
                json_object_set_new(md, "size", json_integer(pk->amount));
            }
        }
    }
    if (copy)
        grove_rv1_set_scheduling_take(R, copy);
    return R;
}

char *grove_acquire_first_response(const grove_rv1_t *R)
{
    json_t *doc = json_object();
    json_t *res = grove_rv1_to_json(R, 0);
    grove_idset_t *ranks = grove_rv1_ranks(R);
    char *text = NULL;
    if (doc && res && ranks && json_object_set(doc, "resources", res) == 0
        && json_object_set_new(doc, "up", grovep_json_idset(ranks)) == 0)
        text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(res);
    json_decref(doc);
    grove_idset_destroy(ranks);
    return grovep_or_errno(text, ENOMEM);
}
