/* l_types.c: g:types(), the resource types a graph's vertices have.
 *
 *   g:types()   a sorted list of the types of the live vertices
 *
 * Workload: once per query session (the jobspec reader's known types) and
 * again after the graph's structure changes; it must not visit vertices,
 * since a graph of a million vertices has a handful of types: it reads the
 * count of each symbol's type index.
 *
 * This file only adds that method to the graph class (l_graph.c owns the
 * class and every other method).
 */
#include <stdlib.h>
#include <string.h>

#include "lgraph.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int g_types(lua_State *L)
{
    const grove_graph_t *g = grovel_check_graph(L, 1);
    size_t n = 0, cap = 16;
    const char **names = lua_newuserdatauv(L, cap * sizeof(*names), 0);
    const char *s;
    for (grove_sym_t sym = 0; (s = grove_graph_str(g, sym)); sym++) {
        if (grove_graph_count_type(g, sym) == 0)
            continue;
        if (n == cap) { /* the old block stays anchored until the end */
            const char **more = lua_newuserdatauv(L, 2 * cap * sizeof(*more), 0);
            memcpy(more, names, n * sizeof(*names));
            names = more;
            cap *= 2;
        }
        names[n++] = s;
    }
    qsort(names, n, sizeof(*names), cmp_str);
    grovel_push_strings(L, names, n, NULL);
    return 1;
}

#include "api_types.h"
