/* graphml.c: mission DAGs from and to ADMission GraphML (libxml2), and as Graphviz DOT. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "mission_internal.h"

#define MAX_FILE ((size_t)16 << 20)
#define MAX_KEYS 64

enum { K_SIZE, K_TAN, K_ADJ, K_JAC, K_MODEL, K_NKEYS };
static const char *const key_names[K_NKEYS] = {"size", "tangent_cost", "adjoint_cost", "has_jacobian",
                                               "has_model"};

typedef struct key {
  const char *id;  /* the key's id (data elements refer to it) */
  int which;       /* K_* or -1: a key we ignore */
  int for_edge;
} key;

typedef struct reader {
  ade_mission *d;
  key keys[MAX_KEYS];
  int nkeys;
  int *sorted;      /* variable indices sorted by id */
} reader;

static int is_el(const xmlNode *n, const char *name) {
  return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}
static const char *attr(const xmlNode *n, const char *name) {
  const xmlAttr *a = xmlHasProp((xmlNode *)n, (const xmlChar *)name);
  return a && a->children && a->children->type == XML_TEXT_NODE ? (const char *)a->children->content : NULL;
}

/* A non-negative decimal integer (surrounding blanks allowed) at most max. */
static int parse_u64(const char *s, uint64_t max, uint64_t *v) {
  uint64_t x = 0;
  int digits = 0;
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
  if (*s == '+') s++;
  for (; *s >= '0' && *s <= '9'; s++, digits++) {
    if (x > (UINT64_MAX - 9) / 10) return -1;
    x = 10 * x + (uint64_t)(*s - '0');
  }
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
  if (!digits || *s || x > max) return -1;
  *v = x;
  return 0;
}

static int parse_bool(const char *s, uint64_t *v) {
  while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r') s++;
  size_t n = strlen(s);
  while (n && strchr(" \n\t\r", s[n - 1])) n--;
  if ((n == 1 && *s == '1') || (n == 4 && strncasecmp(s, "true", 4) == 0)) return *v = 1, 0;
  if ((n == 1 && *s == '0') || (n == 5 && strncasecmp(s, "false", 5) == 0)) return *v = 0, 0;
  return -1;
}

/* The text of a data element: only text children allowed. */
static const char *text_of(const xmlNode *n) {
  const xmlNode *c = n->children;
  if (!c) return "";
  if (c->type != XML_TEXT_NODE || c->next) return NULL;
  return (const char *)c->content;
}

static int bad(const xmlNode *n, const char *what, const char *id, const char *msg) {
  char copy[256]; /* msg may be the thread's error message itself */
  snprintf(copy, sizeof copy, "%s", msg);
  msg = copy;
  return ade__fail(ADE_EFORMAT, "GraphML line %ld: %s '%s': %s", (long)xmlGetLineNo((xmlNode *)n), what,
                   id ? id : "?", msg);
}

static int read_key(reader *r, const xmlNode *n) {
  const char *id = attr(n, "id"), *name = attr(n, "attr.name"), *f = attr(n, "for");
  if (!id) return bad(n, "key", NULL, "no id");
  if (r->nkeys == MAX_KEYS) return bad(n, "key", id, "more than 64 keys");
  for (int k = 0; k < r->nkeys; k++)
    if (strcmp(r->keys[k].id, id) == 0) return bad(n, "key", id, "defined twice");
  key *k = &r->keys[r->nkeys++];
  *k = (key){id, -1, f && strcmp(f, "edge") == 0};
  if (!name) name = id;
  for (int w = 0; w < K_NKEYS; w++)
    if (strcmp(name, key_names[w]) == 0 || (w == K_SIZE && strcmp(name, "vector_size") == 0)) k->which = w;
  if (k->which >= 0 && (k->which == K_SIZE) == k->for_edge)
    return bad(n, "key", id, k->for_edge ? "'size' is a node key" : "costs and flags are edge keys");
  return ADE_OK;
}

/* The values of the data children of n, keyed K_*; have[w] says which came. */
static int read_data(const reader *r, const xmlNode *n, const char *what, const char *id, uint64_t *val,
                     int *have) {
  for (const xmlNode *c = n->children; c; c = c->next) {
    if (!is_el(c, "data")) continue;
    const char *k = attr(c, "key"), *t = text_of(c);
    int which = -2;
    for (int i = 0; k && i < r->nkeys; i++)
      if (strcmp(r->keys[i].id, k) == 0) which = r->keys[i].which;
    if (which == -2) return bad(c, what, id, "data with an undeclared key");
    if (which < 0) continue;
    if (have[which]) return bad(c, what, id, "the same data twice");
    if (!t) return bad(c, what, id, "data that is not plain text");
    uint64_t max = which == K_SIZE ? ADE__M_MAXSIZE : ADE__M_MAXCOST;
    int e = which >= K_JAC ? parse_bool(t, &val[which]) : parse_u64(t, max, &val[which]);
    if (e) return ade__fail(ADE_EFORMAT, "GraphML line %ld: %s '%s': %s '%.40s' is not %s",
                            (long)xmlGetLineNo((xmlNode *)c), what, id, key_names[which], t,
                            which >= K_JAC ? "a boolean" : which == K_SIZE ? "a size in 1..10^6" : "a cost in 0..10^9");
    have[which] = 1;
  }
  return ADE_OK;
}

static int read_node(reader *r, const xmlNode *n) {
  const char *id = attr(n, "id");
  uint64_t val[K_NKEYS] = {0};
  int have[K_NKEYS] = {0};
  if (!id) return bad(n, "node", NULL, "no id");
  if (!ade__mission_id_ok(id)) return bad(n, "node", "", "id not 1..64 characters of A-Z a-z 0-9 _ . : + -");
  int rc = read_data(r, n, "node", id, val, have);
  if (rc) return rc;
  if (!have[K_SIZE]) return bad(n, "node", id, "missing data 'size'");
  if (!val[K_SIZE]) return bad(n, "node", id, "size 0");
  rc = ade_mission_add_var(r->d, id, val[K_SIZE], NULL);
  return rc == ADE_EINVAL ? bad(n, "node", id, ade_errmsg()) : rc;
}

/* Variable index of id by binary search over r->sorted, or -1. */
static int find_var(const reader *r, const char *id) {
  int lo = 0, hi = r->d->nv - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2, c = strcmp(r->d->v[r->sorted[mid]].id, id);
    if (!c) return r->sorted[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

static int read_edge(reader *r, const xmlNode *n) {
  const char *id = attr(n, "id"), *s = attr(n, "source"), *t = attr(n, "target");
  char num[32];
  uint64_t val[K_NKEYS] = {0};
  int have[K_NKEYS] = {0};
  if (!id) snprintf(num, sizeof num, "%d", r->d->ne), id = num;
  if (!ade__mission_id_ok(id)) return bad(n, "edge", "", "id not 1..64 characters of A-Z a-z 0-9 _ . : + -");
  if (!s || !t) return bad(n, "edge", id, "no source or no target");
  int src = find_var(r, s), dst = find_var(r, t);
  if (src < 0 || dst < 0) return bad(n, "edge", id, src < 0 ? "its source is no node" : "its target is no node");
  int rc = read_data(r, n, "edge", id, val, have);
  for (int w = K_TAN; !rc && w < K_NKEYS; w++)
    if (!have[w]) return ade__fail(ADE_EFORMAT, "GraphML line %ld: edge '%s': missing data '%s'",
                                   (long)xmlGetLineNo((xmlNode *)n), id, key_names[w]);
  if (rc) return rc;
  rc = ade_mission_add_elemental(r->d, id, src, dst, val[K_TAN], val[K_ADJ], (int)val[K_JAC], (int)val[K_MODEL]);
  return rc == ADE_EINVAL ? bad(n, "edge", id, ade_errmsg()) : rc;
}

static int var_by_id(const void *a, const void *b, void *d_) {
  const ade_mission *d = d_;
  return strcmp(d->v[*(const int *)a].id, d->v[*(const int *)b].id);
}
static int elem_by_id(const void *a, const void *b, void *d_) {
  const ade_mission *d = d_;
  return strcmp(d->e[*(const int *)a].id, d->e[*(const int *)b].id);
}

/* Two edges with the same id (sorted, neighbours compared). */
static int edge_ids_unique(reader *r) {
  int ne = r->d->ne;
  int *ix = ade__alloc(ade__mul_size((size_t)ne, sizeof *ix)), rc = ADE_OK;
  if (!ix) return ade__fail(ADE_ENOMEM, "GraphML: out of memory");
  for (int k = 0; k < ne; k++) ix[k] = k;
  qsort_r(ix, (size_t)ne, sizeof *ix, elem_by_id, r->d);
  for (int k = 1; k < ne && !rc; k++)
    if (strcmp(r->d->e[ix[k]].id, r->d->e[ix[k - 1]].id) == 0)
      rc = ade__fail(ADE_EFORMAT, "GraphML: edge '%s': a second edge with this id", r->d->e[ix[k]].id);
  ade__free(ix);
  return rc;
}

/* Nodes first, then edges (by id lookup in a sorted index). */
static int read_graph(reader *r, const xmlNode *g) {
  const char *dir = attr(g, "edgedefault");
  int rc = ADE_OK;
  if (dir && strcmp(dir, "directed") != 0) return bad(g, "graph", attr(g, "id"), "not directed");
  for (const xmlNode *c = g->children; c && !rc; c = c->next)
    if (is_el(c, "node")) rc = read_node(r, c);
  if (rc) return rc;
  r->sorted = ade__alloc(ade__mul_size((size_t)r->d->nv + 1, sizeof *r->sorted));
  if (!r->sorted) return ade__fail(ADE_ENOMEM, "GraphML: out of memory");
  for (int i = 0; i < r->d->nv; i++) r->sorted[i] = i;
  qsort_r(r->sorted, (size_t)r->d->nv, sizeof *r->sorted, var_by_id, r->d);
  for (const xmlNode *c = g->children; c && !rc; c = c->next)
    if (is_el(c, "edge")) rc = read_edge(r, c);
  return rc ? rc : edge_ids_unique(r);
}

static int read_doc(reader *r, const xmlDoc *doc) {
  const xmlNode *root = xmlDocGetRootElement(doc), *graph = NULL;
  int rc = ADE_OK;
  if (doc->intSubset || doc->extSubset) return ade__fail(ADE_EFORMAT, "GraphML: a DTD is not allowed");
  if (!root || !is_el(root, "graphml")) return ade__fail(ADE_EFORMAT, "GraphML: the root element is not <graphml>");
  for (const xmlNode *c = root->children; c && !rc; c = c->next) {
    if (is_el(c, "key")) rc = read_key(r, c);
    else if (is_el(c, "graph") && !graph) graph = c;
    else if (is_el(c, "graph")) rc = bad(c, "graph", attr(c, "id"), "a second graph");
  }
  if (rc) return rc;
  if (!graph) return ade__fail(ADE_EFORMAT, "GraphML: no <graph> element");
  if ((rc = read_graph(r, graph))) return rc;
  rc = ade__mission_check(r->d);
  if (rc == ADE_EINVAL || rc == ADE_ECYCLE) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s", ade_errmsg());
    rc = ade__fail(rc, "GraphML: %s", msg);
  }
  return rc;
}

int ade_mission_read_graphml_mem(ade_mission **d, const char *buf, size_t len) {
  if (!d || (!buf && len)) return ade__fail(ADE_EINVAL, "ade_mission_read_graphml: NULL argument");
  *d = NULL;
  if (len > MAX_FILE) return ade__fail(ADE_ETOOBIG, "GraphML: %zu bytes (at most %zu)", len, MAX_FILE);
  xmlInitParser();
  xmlParserCtxt *ctx = xmlNewParserCtxt();
  if (!ctx) return ade__fail(ADE_ENOMEM, "GraphML: out of memory");
  int opts = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA;
  xmlDoc *doc = xmlCtxtReadMemory(ctx, buf ? buf : "", (int)len, "mission.graphml", NULL, opts);
  int rc;
  if (!doc) {
    const xmlError *e = xmlCtxtGetLastError(ctx);
    char msg[160];
    snprintf(msg, sizeof msg, "%s", e && e->message ? e->message : "parse error");
    for (size_t n = strlen(msg); n && (msg[n - 1] == '\n' || msg[n - 1] == ' '); n--) msg[n - 1] = '\0';
    rc = ade__fail(ADE_EFORMAT, "GraphML: not well-formed XML (line %d: %s)", e ? e->line : 0, msg);
  } else {
    reader r = {0};
    rc = ade_mission_create(&r.d);
    if (!rc) rc = read_doc(&r, doc);
    if (rc) ade_mission_free(r.d);
    else *d = r.d;
    ade__free(r.sorted);
  }
  xmlFreeDoc(doc);
  xmlFreeParserCtxt(ctx);
  return rc;
}

int ade_mission_read_graphml(ade_mission **d, const char *path) {
  if (!d || !path) return ade__fail(ADE_EINVAL, "ade_mission_read_graphml: NULL argument");
  *d = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return ade__fail(ADE_EIO, "%s: cannot open: %s", path, strerror(errno));
  char *buf = ade__alloc(MAX_FILE + 1);
  if (!buf) {
    fclose(f);
    return ade__fail(ADE_ENOMEM, "GraphML: out of memory");
  }
  size_t n = fread(buf, 1, MAX_FILE + 1, f);
  int err = ferror(f);
  fclose(f);
  int rc = err ? ade__fail(ADE_EIO, "%s: read error", path)
           : n > MAX_FILE ? ade__fail(ADE_ETOOBIG, "%s: larger than 16 MiB", path)
                          : ade_mission_read_graphml_mem(d, buf, n);
  ade__free(buf);
  if (rc && rc != ADE_ENOMEM) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s", ade_errmsg());
    ade__fail(rc, "%s: %s", path, msg);
  }
  return rc;
}

/* --------------------------------------------------------------- writing */

int ade_mission_write_graphml(const ade_mission *d, void *file) {
  FILE *f = file;
  if (!d || !f) return ade__fail(ADE_EINVAL, "ade_mission_write_graphml: NULL argument");
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
        "  <key id=\"has_jacobian\" for=\"edge\" attr.name=\"has_jacobian\" attr.type=\"boolean\" />\n"
        "  <key id=\"adjoint_cost\" for=\"edge\" attr.name=\"adjoint_cost\" attr.type=\"long\" />\n"
        "  <key id=\"tangent_cost\" for=\"edge\" attr.name=\"tangent_cost\" attr.type=\"long\" />\n"
        "  <key id=\"has_model\" for=\"edge\" attr.name=\"has_model\" attr.type=\"boolean\" />\n"
        "  <key id=\"index\" for=\"node\" attr.name=\"index\" attr.type=\"long\" />\n"
        "  <key id=\"size\" for=\"node\" attr.name=\"size\" attr.type=\"long\" />\n"
        "  <graph id=\"G\" edgedefault=\"directed\">\n",
        f);
  for (int i = 0; i < d->nv; i++)
    fprintf(f, "    <node id=\"%s\">\n      <data key=\"index\">%d</data>\n      <data key=\"size\">%" PRIu64
               "</data>\n    </node>\n", d->v[i].id, i, d->v[i].size);
  for (int k = 0; k < d->ne; k++) {
    const ade__melem *e = &d->e[k];
    fprintf(f, "    <edge id=\"%s\" source=\"%s\" target=\"%s\">\n", e->id, d->v[e->src].id, d->v[e->dst].id);
    fprintf(f, "      <data key=\"has_jacobian\">%d</data>\n      <data key=\"adjoint_cost\">%" PRIu64
               "</data>\n      <data key=\"tangent_cost\">%" PRIu64 "</data>\n      <data key=\"has_model\">%d"
               "</data>\n    </edge>\n", e->jac, e->adj, e->tan, e->model);
  }
  fputs("  </graph>\n</graphml>\n", f);
  return ferror(f) ? ade__fail(ADE_EIO, "writing the GraphML failed") : ADE_OK;
}

int ade_mission_write_dot(const ade_mission *d, void *file) {
  FILE *f = file;
  if (!d || !f) return ade__fail(ADE_EINVAL, "ade_mission_write_dot: NULL argument");
  fputs("digraph mission {\n  rankdir=BT;\n  node [fontsize=10];\n  edge [fontsize=9];\n", f);
  for (int i = 0; i < d->nv; i++)
    fprintf(f, "  \"%s\" [shape=%s, label=\"%s\\n(%" PRIu64 ")\"];\n", d->v[i].id,
            !d->v[i].nin ? "box" : !d->v[i].nout ? "doublecircle" : "circle", d->v[i].id, d->v[i].size);
  for (int k = 0; k < d->ne; k++) {
    const ade__melem *e = &d->e[k];
    fprintf(f, "  \"%s\" -> \"%s\" [label=\"", d->v[e->src].id, d->v[e->dst].id);
    if (e->model) fprintf(f, "%" PRIu64 "/%" PRIu64, e->tan, e->adj);
    fprintf(f, "%s\"];\n", e->jac ? (e->model ? " J" : "J") : "");
  }
  fputs("}\n", f);
  return ferror(f) ? ade__fail(ADE_EIO, "writing the DOT graph failed") : ADE_OK;
}
