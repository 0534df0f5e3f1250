/*
 * rest_record.c - the REST records as a backend keeps them (rest_redis.c):
 * each thread, state, run and item as one JSON object, written here and
 * read back here. What is read back is outside bytes (whatever is in
 * Redis): the readers check every member they take, refuse a record that
 * is not one of ours with a located error, and never leave a record half
 * read. tests/fuzz/rest_record.c fuzzes them.
 */
#include "rest_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ------------------------------------------------------------------------------ */

static void put_str(aps_json_writer *w, const char *key, const char *v)
{
    aps_json_write_key(w, key, strlen(key));
    aps_json_write_string(w, v, strlen(v));
}

static void put_raw(aps_json_writer *w, const char *key, const char *json)
{
    aps_json_write_key(w, key, strlen(key));
    if (json != NULL)
        aps_json_write_raw(w, (aps_json_raw){ json, strlen(json) });
    else
        aps_json_write_null(w);
}

static void put_int(aps_json_writer *w, const char *key, int64_t v)
{
    aps_json_write_key(w, key, strlen(key));
    aps_json_write_int64(w, v);
}

/* The writer's text, malloc'd (the writer released); NULL out of memory. */
static char *writer_text(aps_json_writer *w)
{
    char *text = aps_json_writer_status(w) == APS_OK ? rest_strndup(aps_json_writer_data(w), aps_json_writer_len(w))
                                                     : NULL;
    aps_json_writer_deinit(w);
    return text;
}

char *rest_thread_record(const rthread *t)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    put_str(&w, "id", t->id);
    put_str(&w, "created", t->created);
    put_str(&w, "updated", t->updated);
    put_raw(&w, "metadata", t->metadata);
    put_raw(&w, "values", t->values);
    put_raw(&w, "interrupts", t->interrupts);
    put_str(&w, "interrupt_node", t->interrupt_node);
    put_str(&w, "status", t->status);
    put_str(&w, "active", t->active);
    put_str(&w, "graph", t->graph);
    put_str(&w, "checkpoint", t->checkpoint);
    put_int(&w, "step", t->step);
    put_int(&w, "order", (int64_t)t->order);
    aps_json_write_object_end(&w);
    return writer_text(&w);
}

char *rest_state_record(const rstate *s)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    put_raw(&w, "values", s->values);
    if (s->metadata != NULL)
        put_raw(&w, "metadata", s->metadata);
    put_str(&w, "checkpoint", s->checkpoint);
    put_str(&w, "parent", s->parent);
    put_str(&w, "created", s->created);
    put_int(&w, "step", s->step);
    aps_json_write_object_end(&w);
    return writer_text(&w);
}

char *rest_run_record(const rrun *run)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    put_str(&w, "id", run->id);
    put_str(&w, "thread", run->thread);
    put_str(&w, "assistant", run->assistant);
    put_str(&w, "graph", run->graph);
    put_str(&w, "status", run->status);
    put_str(&w, "multitask", run->multitask);
    put_str(&w, "created", run->created);
    put_str(&w, "updated", run->updated);
    put_raw(&w, "metadata", run->metadata);
    put_raw(&w, "kwargs", run->kwargs);
    put_int(&w, "modes", run->modes);
    put_int(&w, "pending", run->pending);
    put_int(&w, "resume", run->resume);
    put_raw(&w, "resume_json", run->resume_json);
    put_int(&w, "order", (int64_t)run->order);
    aps_json_write_object_end(&w);
    return writer_text(&w);
}

char *rest_item_record(const ritem *it)
{
    aps_json_writer w;
    size_t i;
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "namespace", 9);
    aps_json_write_array_begin(&w);
    for (i = 0; i < it->nlabels; i++)
        aps_json_write_string(&w, it->labels[i], strlen(it->labels[i]));
    aps_json_write_array_end(&w);
    put_str(&w, "key", it->key);
    put_raw(&w, "value", it->value);
    put_str(&w, "created", it->created);
    put_str(&w, "updated", it->updated);
    put_int(&w, "order", (int64_t)it->order);
    aps_json_write_object_end(&w);
    return writer_text(&w);
}

/* ---- reading ------------------------------------------------------------------------------ */

/* A record being read: its object, an arena for the members, the first error. */
typedef struct reading {
    aps_json_raw obj;
    aps_arena arena;
    aps_error *err;
    aps_status st;
} reading;

static aps_status fail(reading *rd, aps_status code, const char *member, const char *why)
{
    char pointer[64];
    if (rd->st == APS_OK) {
        rd->st = code;
        aps_error_set(rd->err, code, 0, "a REST record's /%s %s", member, why);
        snprintf(pointer, sizeof pointer, "/%s", member);
        aps_error_set_pointer(rd->err, pointer);
    }
    return rd->st;
}

/* Starts reading text[0..len): 0, or -1 when it is not a JSON object (the error set). */
static int start(reading *rd, const char *text, size_t len, aps_error *err)
{
    rd->obj.ptr = text;
    rd->obj.len = len;
    rd->err = err;
    rd->st = APS_OK;
    aps_arena_init(&rd->arena, NULL);
    if ((rd->st = aps_json_validate(text, len, NULL, err)) != APS_OK)
        return -1;
    if (aps_json_raw_kind(rd->obj) != APS_JSON_OBJECT) {
        rd->st = aps_error_set(err, APS_E_SYNTAX, 0, "a REST record is a JSON object");
        return -1;
    }
    return 0;
}

/* String member `name` into buf[cap] (it fits, with its NUL); `required`: it must be there and not empty. */
static void text_member(reading *rd, const char *name, char *buf, size_t cap, int required)
{
    aps_json_raw v;
    aps_json_reader r;
    aps_slice s;
    buf[0] = '\0';
    if (rd->st != APS_OK)
        return;
    if (aps_json_raw_member(rd->obj, name, strlen(name), &rd->arena, &v, NULL) != APS_OK) {
        if (required)
            fail(rd, APS_E_SYNTAX, name, "is missing");
        return;
    }
    aps_json_raw_reader(&r, v, &rd->arena);
    if (aps_json_read_string(&r, &s, NULL) != APS_OK || s.len >= cap || memchr(s.ptr, '\0', s.len) != NULL) {
        fail(rd, APS_E_SYNTAX, name, "is not a string of the size it has in memory");
        return;
    }
    if (required && s.len == 0) {
        fail(rd, APS_E_SYNTAX, name, "is empty");
        return;
    }
    memcpy(buf, s.ptr, s.len);
    buf[s.len] = '\0';
}

/* Member `name` as malloc'd JSON text into *out (NULL when absent or null); `object`: it must be one. */
static void json_member(reading *rd, const char *name, char **out, int object)
{
    aps_json_raw v;
    *out = NULL;
    if (rd->st != APS_OK || aps_json_raw_member(rd->obj, name, strlen(name), &rd->arena, &v, NULL) != APS_OK ||
        aps_json_raw_kind(v) == APS_JSON_NULL)
        return;
    if (object && aps_json_raw_kind(v) != APS_JSON_OBJECT) {
        fail(rd, APS_E_SYNTAX, name, "is not an object");
        return;
    }
    if ((*out = rest_strndup(v.ptr, v.len)) == NULL)
        fail(rd, APS_E_NOMEM, name, "could not be kept: out of memory");
}

/* Integer member `name` (0 when absent) in [lo, hi]. */
static int64_t int_member(reading *rd, const char *name, int64_t lo, int64_t hi)
{
    aps_json_raw v;
    aps_json_reader r;
    int64_t n = 0;
    if (rd->st != APS_OK || aps_json_raw_member(rd->obj, name, strlen(name), &rd->arena, &v, NULL) != APS_OK)
        return 0;
    aps_json_raw_reader(&r, v, &rd->arena);
    if (aps_json_read_int64(&r, &n, NULL) != APS_OK || n < lo || n > hi) {
        fail(rd, APS_E_SYNTAX, name, "is not an integer in its range");
        return 0;
    }
    return n;
}

static aps_status finish(reading *rd)
{
    aps_arena_deinit(&rd->arena);
    return rd->st;
}

aps_status rest_thread_read(const char *text, size_t len, rthread *t, aps_error *err)
{
    reading rd;
    if (start(&rd, text, len, err) != 0)
        return finish(&rd);
    text_member(&rd, "id", t->id, sizeof t->id, 1);
    if (rd.st == APS_OK && rest_check_id(t->id, strlen(t->id)) != 0)
        fail(&rd, APS_E_SYNTAX, "id", "is not a thread id");
    text_member(&rd, "created", t->created, sizeof t->created, 0);
    text_member(&rd, "updated", t->updated, sizeof t->updated, 0);
    json_member(&rd, "metadata", &t->metadata, 1);
    json_member(&rd, "values", &t->values, 0);
    json_member(&rd, "interrupts", &t->interrupts, 0);
    text_member(&rd, "interrupt_node", t->interrupt_node, sizeof t->interrupt_node, 0);
    text_member(&rd, "status", t->status, sizeof t->status, 1);
    text_member(&rd, "active", t->active, sizeof t->active, 0);
    text_member(&rd, "graph", t->graph, sizeof t->graph, 0);
    text_member(&rd, "checkpoint", t->checkpoint, sizeof t->checkpoint, 0);
    t->step = int_member(&rd, "step", INT64_MIN, INT64_MAX);
    t->order = (uint64_t)int_member(&rd, "order", 0, INT64_MAX);
    if (rd.st == APS_OK && t->metadata == NULL && (t->metadata = rest_strndup("{}", 2)) == NULL)
        fail(&rd, APS_E_NOMEM, "metadata", "could not be kept: out of memory");
    return finish(&rd);
}

aps_status rest_state_read(const char *text, size_t len, rstate *s, aps_error *err)
{
    reading rd;
    if (start(&rd, text, len, err) != 0)
        return finish(&rd);
    json_member(&rd, "values", &s->values, 0);
    json_member(&rd, "metadata", &s->metadata, 1);
    text_member(&rd, "checkpoint", s->checkpoint, sizeof s->checkpoint, 0);
    text_member(&rd, "parent", s->parent, sizeof s->parent, 0);
    text_member(&rd, "created", s->created, sizeof s->created, 0);
    s->step = int_member(&rd, "step", INT64_MIN, INT64_MAX);
    if (rd.st == APS_OK && s->values == NULL && (s->values = rest_strndup("{}", 2)) == NULL)
        fail(&rd, APS_E_NOMEM, "values", "could not be kept: out of memory");
    return finish(&rd);
}

aps_status rest_run_read(const char *text, size_t len, rrun *run, aps_error *err)
{
    reading rd;
    rrun got; /* (read apart: a run this process plays keeps what it has until the whole record is read) */
    memset(&got, 0, sizeof got);
    if (start(&rd, text, len, err) != 0)
        return finish(&rd);
    text_member(&rd, "id", got.id, sizeof got.id, 1);
    text_member(&rd, "thread", got.thread, sizeof got.thread, 1);
    if (rd.st == APS_OK && rest_check_id(got.thread, strlen(got.thread)) != 0)
        fail(&rd, APS_E_SYNTAX, "thread", "is not a thread id");
    text_member(&rd, "assistant", got.assistant, sizeof got.assistant, 0);
    text_member(&rd, "graph", got.graph, sizeof got.graph, 0);
    text_member(&rd, "status", got.status, sizeof got.status, 1);
    text_member(&rd, "multitask", got.multitask, sizeof got.multitask, 0);
    text_member(&rd, "created", got.created, sizeof got.created, 0);
    text_member(&rd, "updated", got.updated, sizeof got.updated, 0);
    json_member(&rd, "metadata", &got.metadata, 1);
    json_member(&rd, "kwargs", &got.kwargs, 1);
    json_member(&rd, "resume_json", &got.resume_json, 0);
    got.modes = (uint32_t)int_member(&rd, "modes", 0, UINT32_MAX);
    got.pending = (int)int_member(&rd, "pending", 0, 1);
    got.resume = (int)int_member(&rd, "resume", 0, 1);
    got.order = (uint64_t)int_member(&rd, "order", 0, INT64_MAX);
    if (finish(&rd) != APS_OK) {
        free(got.metadata);
        free(got.kwargs);
        free(got.resume_json);
        return rd.st;
    }
    memcpy(run->id, got.id, sizeof run->id);
    memcpy(run->thread, got.thread, sizeof run->thread);
    memcpy(run->assistant, got.assistant, sizeof run->assistant);
    memcpy(run->graph, got.graph, sizeof run->graph);
    memcpy(run->status, got.status, sizeof run->status);
    memcpy(run->multitask, got.multitask, sizeof run->multitask);
    memcpy(run->created, got.created, sizeof run->created);
    memcpy(run->updated, got.updated, sizeof run->updated);
    free(run->metadata);
    free(run->kwargs);
    free(run->resume_json);
    run->metadata = got.metadata;
    run->kwargs = got.kwargs;
    run->resume_json = got.resume_json;
    run->modes = got.modes;
    run->pending = got.pending;
    run->resume = got.resume;
    run->order = got.order;
    return APS_OK;
}

aps_status rest_item_read(const char *text, size_t len, ritem *it, aps_error *err)
{
    reading rd;
    aps_json_raw ns;
    aa_store_namespace_t labels;
    size_t i;
    char key[1024];
    if (start(&rd, text, len, err) != 0)
        return finish(&rd);
    if (aps_json_raw_member(rd.obj, "namespace", 9, &rd.arena, &ns, NULL) != APS_OK ||
        aa_store_namespace_decode(ns.ptr, ns.len, &rd.arena, &labels, NULL) != APS_OK || labels.count == 0) {
        fail(&rd, APS_E_SYNTAX, "namespace", "is not an array of labels");
        return finish(&rd);
    }
    for (i = 0; i < labels.count; i++)
        if (labels.items[i].len == 0 || memchr(labels.items[i].ptr, '\0', labels.items[i].len) != NULL) {
            fail(&rd, APS_E_SYNTAX, "namespace", "has an empty label or a NUL");
            return finish(&rd);
        }
    if ((it->labels = calloc(labels.count, sizeof *it->labels)) == NULL) {
        fail(&rd, APS_E_NOMEM, "namespace", "could not be kept: out of memory");
        return finish(&rd);
    }
    for (i = 0; i < labels.count && rd.st == APS_OK; i++, it->nlabels++)
        if ((it->labels[i] = rest_strndup(labels.items[i].ptr, labels.items[i].len)) == NULL)
            fail(&rd, APS_E_NOMEM, "namespace", "could not be kept: out of memory");
    text_member(&rd, "key", key, sizeof key, 1);
    if (rd.st == APS_OK && (it->key = rest_strndup(key, strlen(key))) == NULL)
        fail(&rd, APS_E_NOMEM, "key", "could not be kept: out of memory");
    json_member(&rd, "value", &it->value, 1);
    if (rd.st == APS_OK && it->value == NULL)
        fail(&rd, APS_E_SYNTAX, "value", "is missing");
    text_member(&rd, "created", it->created, sizeof it->created, 0);
    text_member(&rd, "updated", it->updated, sizeof it->updated, 0);
    it->order = (uint64_t)int_member(&rd, "order", 0, INT64_MAX);
    return finish(&rd);
}
