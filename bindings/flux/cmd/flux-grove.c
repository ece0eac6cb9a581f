/* flux-grove: `flux grove CMD`, the operator's commands of sched-grove.
 *
 * Each command is one request, sched-grove.CMD, to the module on rank 0
 * (bindings/flux/ops.c hands it to grove.flux.ops): its arguments as a
 * JSON object, with {json = true} when --json asks for the output
 * scripts read and {utc_offset = seconds} (this terminal's time zone,
 * in which the module reads and shows times).  The answer's text is
 * printed as it is; an error's message goes to stderr and the exit code
 * is 1.  The client decides nothing: what a command means, what is
 * wrong with it and how the answer reads are the module's.  It only
 * reads its command line, turns a user name into its id, and for `why`
 * first asks the job manager what it knows of the job (job-list's state,
 * queue, urgency and priority, and the queue's status, as `flux queue
 * status` reads it), which the module needs for a job it does not hold.
 */
#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <flux/core.h>
#include <flux/optparse.h>
#include <jansson.h>

#define PROG "flux-grove"

/* --json, which every command takes */
#define JSON_OPTION(what) {"json", 'j', 0, 0, 0, NULL, what, NULL}

static struct optparse_option json_opts[] = {
    JSON_OPTION("Print the answer as JSON (for scripts)"),
    OPTPARSE_TABLE_END,
};

static struct optparse_option graph_opts[] = {
    {"format", 'f', 1, 0, 0, "jgf|R",
     "The graph as JGF, with each vertex's status and allocations (default), or as R: "
     "{all, down, allocated}",
     NULL},
    {"types", 'T', 1, 0, 0, "TYPE,...",
     "JGF of the vertices of these types only (and the edges between them): at 16,384 nodes "
     "the whole graph is hundreds of MB, --types=node a few",
     NULL},
    JSON_OPTION("The same (JGF and R are JSON)"),
    OPTPARSE_TABLE_END,
};

static struct optparse_option reserve_opts[] = {
    {"start", 's', 1, 0, 0, "TIME",
     "When the window opens: now (default), +DURATION, YYYY-MM-DD[THH:MM[:SS]], HH:MM or "
     "@EPOCH, in this terminal's time zone",
     NULL},
    {"end", 'e', 1, 0, 0, "TIME", "When it closes (as --start)", NULL},
    {"duration", 't', 1, 0, 0, "DURATION", "How long it lasts (seconds, or a number with s, m, "
     "h, d), instead of --end", NULL},
    {"user", 'u', 1, 0, 0, "USER", "A user whose jobs may use it (name or id)", NULL},
    {"bank", 'B', 1, 0, 0, "BANK", "A bank whose jobs may use it", NULL},
    {"queue", 'q', 1, 0, 0, "QUEUE", "A queue whose jobs may use it", NULL},
    JSON_OPTION("Print the answer as JSON (for scripts)"),
    OPTPARSE_TABLE_END,
};

/* This terminal's time zone: seconds east of UTC now. */
static long utc_offset(void)
{
    time_t now = time(NULL);
    struct tm tm;
    if (!localtime_r(&now, &tm))
        return 0;
    return tm.tm_gmtoff;
}

static flux_t *open_or_die(void)
{
    flux_t *h = flux_open(NULL, 0);
    if (!h) {
        fprintf(stderr, "%s: cannot connect to the Flux instance: %s\n", PROG, strerror(errno));
        exit(1);
    }
    return h;
}

static void die_nomem(void)
{
    fprintf(stderr, "%s: out of memory\n", PROG);
    exit(1);
}

/* Send sched-grove.CMD with payload (taken) on h, print the answer's text
 * (graph: the answer is the document itself) or the error.  The exit
 * code: 0 or 1. */
static int ask(optparse_t *p, flux_t *h, const char *cmd, json_t *payload)
{
    bool raw = !strcmp(cmd, "graph");
    char topic[64];
    snprintf(topic, sizeof(topic), "sched-grove.%s", cmd);
    if (!payload || json_object_set_new(payload, "json", json_boolean(optparse_hasopt(p, "json")))
        || json_object_set_new(payload, "utc_offset", json_integer(utc_offset())))
        die_nomem();
    flux_future_t *f = flux_rpc_pack(h, topic, 0, 0, "O", payload);
    json_decref(payload);
    const char *text = NULL;
    int rc = 0;
    if (!f || (raw ? flux_rpc_get(f, &text) : flux_rpc_get_unpack(f, "{s:s}", "text", &text)) < 0
        || !text) {
        const char *why = f ? flux_future_error_string(f) : NULL;
        fprintf(stderr, "%s: %s\n", PROG, why ? why : strerror(errno));
        rc = 1;
    } else {
        fputs(text, stdout);
        if (raw)
            fputc('\n', stdout);
    }
    flux_future_destroy(f);
    return rc;
}

/* The command's arguments from argv[optindex] on, joined by spaces (a
 * find expression may come in pieces), or NULL when there are none. */
static char *joined(int argc, char **argv, int from)
{
    size_t len = 1;
    for (int i = from; i < argc; i++)
        len += strlen(argv[i]) + 1;
    if (from >= argc)
        return NULL;
    char *s = calloc(1, len);
    if (!s)
        die_nomem();
    for (int i = from; i < argc; i++) {
        if (i > from)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

/* Exactly n arguments after the options, or the usage and exit 1. */
static int args_or_die(optparse_t *p, int argc, int n)
{
    int i = optparse_option_index(p);
    if (argc - i != n)
        optparse_fatal_usage(p, 1, NULL);
    return i;
}

static int cmd_find(optparse_t *p, int argc, char **argv)
{
    int i = optparse_option_index(p);
    char *expr = joined(argc, argv, i);
    if (!expr)
        optparse_fatal_usage(p, 1, NULL);
    flux_t *h = open_or_die();
    int rc = ask(p, h, "find", json_pack("{s:s}", "expr", expr));
    free(expr);
    flux_close(h);
    return rc;
}

/* What the job manager knows of job id: {state, queue, urgency,
 * priority}, or NULL (its error printed) when it knows no such job. */
static json_t *job_facts(flux_t *h, flux_jobid_t id, const char *arg)
{
    flux_future_t *f = flux_job_list_id(h, id, "[\"state\",\"queue\",\"urgency\",\"priority\"]");
    json_t *job = NULL;
    int state = 0;
    if (!f || flux_rpc_get_unpack(f, "{s:o}", "job", &job) < 0
        || json_unpack(job, "{s:i}", "state", &state) < 0) {
        const char *why = errno == ENOENT ? "no such job"
                          : f                ? flux_future_error_string(f)
                                             : NULL;
        fprintf(stderr, "%s: %s: %s\n", PROG, arg, why ? why : strerror(errno));
        flux_future_destroy(f);
        return NULL;
    }
    json_t *out = json_pack("{s:s s:O? s:O? s:O?}", "state",
                            flux_job_statetostr((flux_job_state_t)state, "L"), "queue",
                            json_object_get(job, "queue"), "urgency",
                            json_object_get(job, "urgency"), "priority",
                            json_object_get(job, "priority"));
    flux_future_destroy(f);
    if (!out)
        die_nomem();
    return out;
}

/* The status of the job's queue (or of the anonymous one), as `flux
 * queue status` asks the job manager for it; NULL when it cannot say. */
static json_t *queue_status(flux_t *h, const json_t *job)
{
    const char *queue = json_string_value(json_object_get(job, "queue"));
    flux_future_t *f = queue ? flux_rpc_pack(h, "job-manager.queue-status", 0, 0, "{s:s}",
                                             "name", queue)
                             : flux_rpc_pack(h, "job-manager.queue-status", 0, 0, "{}");
    json_t *o = NULL, *out = NULL;
    if (f && flux_rpc_get_unpack(f, "o", &o) == 0)
        out = json_incref(o);
    flux_future_destroy(f);
    return out;
}

static int cmd_why(optparse_t *p, int argc, char **argv)
{
    int i = args_or_die(p, argc, 1);
    flux_jobid_t id;
    if (flux_job_id_parse(argv[i], &id) < 0) {
        fprintf(stderr, "%s: why: '%s' is not a job id\n", PROG, argv[i]);
        return 1;
    }
    flux_t *h = open_or_die();
    json_t *job = job_facts(h, id, argv[i]);
    if (!job) {
        flux_close(h);
        return 1;
    }
    json_t *qs = queue_status(h, job);
    int rc = ask(p, h, "why", json_pack("{s:I s:o s:o?}", "id", (json_int_t)id, "job", job,
                                        "queue_status", qs));
    flux_close(h);
    return rc;
}

/* set-property TARGET KEY[=VALUE] and remove-property TARGET KEY. */
static int property(optparse_t *p, int argc, char **argv, const char *cmd)
{
    int i = args_or_die(p, argc, 2);
    char *key = strdup(argv[i + 1]);
    if (!key)
        die_nomem();
    char *eq = strcmp(cmd, "set-property") ? NULL : strchr(key, '=');
    if (eq)
        *eq++ = '\0';
    flux_t *h = open_or_die();
    int rc = ask(p, h, cmd, json_pack("{s:s s:s s:s?}", "target", argv[i], "key", key,
                                      "value", eq));
    free(key);
    flux_close(h);
    return rc;
}

static int cmd_set_property(optparse_t *p, int argc, char **argv)
{
    return property(p, argc, argv, "set-property");
}

static int cmd_remove_property(optparse_t *p, int argc, char **argv)
{
    return property(p, argc, argv, "remove-property");
}

/* set-status PATH up|down: a vertex without a broker rank (a rabbit's
 * ssd), as Fluxion's set_status. */
static int cmd_set_status(optparse_t *p, int argc, char **argv)
{
    int i = args_or_die(p, argc, 2);
    flux_t *h = open_or_die();
    int rc = ask(p, h, "set-status", json_pack("{s:s s:s}", "target", argv[i], "status",
                                               argv[i + 1]));
    flux_close(h);
    return rc;
}

/* --user as {user = uid, user_name = name} in o; -1 (printed) when the
 * name is no user of this system. */
static int add_user(json_t *o, const char *user)
{
    char *end;
    long uid = strtol(user, &end, 10);
    struct passwd *pw = (*user && !*end) ? getpwuid((uid_t)uid) : getpwnam(user);
    if (*user && !*end) {
        if (json_object_set_new(o, "user", json_integer(uid)) < 0)
            die_nomem();
    } else if (!pw) {
        fprintf(stderr, "%s: reserve: no user '%s' on this system\n", PROG, user);
        return -1;
    } else if (json_object_set_new(o, "user", json_integer((json_int_t)pw->pw_uid)) < 0) {
        die_nomem();
    }
    if (pw && json_object_set_new(o, "user_name", json_string(pw->pw_name)) < 0)
        die_nomem();
    return 0;
}

static int cmd_reserve(optparse_t *p, int argc, char **argv)
{
    int i = args_or_die(p, argc, 2);
    json_t *o = json_pack("{s:s s:s}", "name", argv[i], "hosts", argv[i + 1]);
    if (!o)
        die_nomem();
    static const char *const keys[] = {"start", "end", "duration", "bank", "queue"};
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        const char *v = optparse_get_str(p, keys[k], NULL);
        if (v && json_object_set_new(o, keys[k], json_string(v)) < 0)
            die_nomem();
    }
    const char *user = optparse_get_str(p, "user", NULL);
    if (user && add_user(o, user) < 0) {
        json_decref(o);
        return 1;
    }
    flux_t *h = open_or_die();
    int rc = ask(p, h, "reserve", o);
    flux_close(h);
    return rc;
}

static int cmd_unreserve(optparse_t *p, int argc, char **argv)
{
    int i = args_or_die(p, argc, 1);
    flux_t *h = open_or_die();
    int rc = ask(p, h, "unreserve", json_pack("{s:s}", "name", argv[i]));
    flux_close(h);
    return rc;
}

/* A command of no arguments but its options (reservations, stats, graph). */
static int no_args(optparse_t *p, int argc, char **argv, const char *cmd, json_t *o)
{
    (void)argv;
    args_or_die(p, argc, 0);
    flux_t *h = open_or_die();
    int rc = ask(p, h, cmd, o);
    flux_close(h);
    return rc;
}

static int cmd_reservations(optparse_t *p, int argc, char **argv)
{
    return no_args(p, argc, argv, "reservations", json_object());
}

static int cmd_reload(optparse_t *p, int argc, char **argv)
{
    return no_args(p, argc, argv, "reload", json_object());
}

static int cmd_stats(optparse_t *p, int argc, char **argv)
{
    return no_args(p, argc, argv, "stats", json_object());
}

static int cmd_graph(optparse_t *p, int argc, char **argv)
{
    return no_args(p, argc, argv, "graph",
                   json_pack("{s:s s:s?}", "format", optparse_get_str(p, "format", "jgf"),
                             "types", optparse_get_str(p, "types", NULL)));
}

static struct optparse_subcommand subcommands[] = {
    {"find", "[OPTIONS] EXPRESSION",
     "The vertices of Grove's find expression (status=down, property=KEY[=VALUE], "
     "sched-now=allocated, names=A,B, with and, or, parentheses), or the nodes of an RFC 31 "
     "constraint given as JSON",
     cmd_find, 0, json_opts},
    {"why", "[OPTIONS] JOBID",
     "Why a pending job waits: it can never fit, what holds the resources of its earliest "
     "start, its queue is stopped, it is held",
     cmd_why, 0, json_opts},
    {"set-property", "[OPTIONS] HOSTS|RANKS|PATH KEY[=VALUE]",
     "Set a property on nodes (a hostlist, or ranks as an idset) or on a vertex (a path such "
     "as /cluster0/node3/gpu0): RFC 31 property constraints see it",
     cmd_set_property, 0, json_opts},
    {"remove-property", "[OPTIONS] HOSTS|RANKS|PATH KEY",
     "Remove a property from nodes or a vertex",
     cmd_remove_property, 0, json_opts},
    {"set-status", "[OPTIONS] PATH up|down",
     "Mark a vertex without a broker rank (a rabbit's ssd, /cluster/chassis0/ssd3) up or down",
     cmd_set_status, 0, json_opts},
    {"reserve", "[OPTIONS] NAME HOSTS|RANKS",
     "Keep nodes for a window (dedicated access time): no other job is placed there in it; "
     "the jobs of --user, --bank or --queue may use them",
     cmd_reserve, 0, reserve_opts},
    {"unreserve", "[OPTIONS] NAME", "End a reservation", cmd_unreserve, 0, json_opts},
    {"reservations", "[OPTIONS]", "List the reservations", cmd_reservations, 0, json_opts},
    {"graph", "[OPTIONS]", "The scheduler's graph, as JGF or as R", cmd_graph, 0, graph_opts},
    {"reload", "[OPTIONS]",
     "Read the policy files of the configuration in force again, and take those whose content "
     "changed once they load and pass a self-check (flux config reload asks the scheduler "
     "nothing when the configuration's TOML did not change)",
     cmd_reload, 0, json_opts},
    {"stats", "[OPTIONS]", "The scheduler's counters (flux module stats sched-grove), as text",
     cmd_stats, 0, json_opts},
    OPTPARSE_SUBCMD_END,
};

int main(int argc, char *argv[])
{
    optparse_t *p = optparse_create(PROG);
    if (!p || optparse_set(p, OPTPARSE_USAGE, "[OPTIONS] COMMAND ARGS") != OPTPARSE_SUCCESS
        || optparse_reg_subcommands(p, subcommands) != OPTPARSE_SUCCESS) {
        fprintf(stderr, "%s: cannot set up its options\n", PROG);
        return 1;
    }
    int i = optparse_parse_args(p, argc, argv);
    if (i < 0)
        return 1;
    if (i == argc || !optparse_get_subcommand(p, argv[i])) {
        if (i < argc)
            fprintf(stderr, "%s: unknown command '%s'\n", PROG, argv[i]);
        optparse_print_usage(p);
        return 1;
    }
    int rc = optparse_run_subcommand(p, argc, argv);
    optparse_destroy(p);
    return rc < 0 ? 1 : rc;
}
