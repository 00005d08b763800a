#ifndef RESTMAP_PLUGIN_H
#define RESTMAP_PLUGIN_H

/*
 * The RestMap plugin ABI, version 1. See Docs/Plugins.md.
 *
 * A plugin is a shared library (librestmap-<name>.so) that exports one C symbol,
 * RESTMAP_PLUGIN_ENTRY_SYMBOL, of type restmap_plugin_entry_fn. It returns a pointer to a
 * descriptor that lives as long as the process (plugins are never unloaded).
 *
 * Versioning: the first field of the descriptor is always a uint32_t abi_version. A host reads it
 * before anything else and refuses a plugin whose version differs from RESTMAP_PLUGIN_ABI_VERSION.
 * Any change to any struct or function signature in this file bumps the version.
 *
 * Memory: what the host passes in (values, arguments, bodies) is owned by the host and valid only
 * during the call. What the plugin hands back (value text, output buffers, error messages) is
 * allocated by the plugin and released by the host through the descriptor's free_buffer.
 *
 * Threads: a transformer instance may be called from many threads at once.
 */

#include <stddef.h>
#include <stdint.h>

#define RESTMAP_PLUGIN_ABI_VERSION 1
#define RESTMAP_PLUGIN_ENTRY_SYMBOL "restmap_plugin_entry_v1"

/* Returned by every call that can fail. On RESTMAP_STATUS_ERROR the error buffer holds a message. */
#define RESTMAP_STATUS_OK 0
#define RESTMAP_STATUS_ERROR 1

/* A byte buffer. Text is UTF-8 and not NUL-terminated. */
typedef struct restmap_buffer {
    char *bytes;
    size_t length;
} restmap_buffer;

/* The kind of a restmap_value. */
typedef enum restmap_value_kind {
    RESTMAP_VALUE_NULL = 0,
    RESTMAP_VALUE_BOOL = 1,    /* boolean */
    RESTMAP_VALUE_INT64 = 2,   /* integer */
    RESTMAP_VALUE_DOUBLE = 3,  /* number */
    RESTMAP_VALUE_DECIMAL = 4, /* text: an exact decimal such as "1234.50" */
    RESTMAP_VALUE_STRING = 5,  /* text */
    RESTMAP_VALUE_DATE = 6,    /* number: seconds since 1970-01-01T00:00:00Z */
    RESTMAP_VALUE_URL = 7,     /* text: an absolute or relative URL */
    RESTMAP_VALUE_JSON = 8     /* text: a JSON array or object */
} restmap_value_kind;

/* A value crossing the boundary: a tag and the one payload field the tag selects. */
typedef struct restmap_value {
    uint32_t kind;     /* a restmap_value_kind */
    uint32_t boolean;  /* RESTMAP_VALUE_BOOL: 0 or 1 */
    int64_t integer;   /* RESTMAP_VALUE_INT64 */
    double number;     /* RESTMAP_VALUE_DOUBLE, RESTMAP_VALUE_DATE */
    const char *text;  /* RESTMAP_VALUE_DECIMAL, _STRING, _URL, _JSON (UTF-8) */
    size_t length;     /* bytes in text */
} restmap_value;

/* The kind of value an argument takes. */
typedef enum restmap_argument_kind {
    RESTMAP_ARGUMENT_STRING = 0,
    RESTMAP_ARGUMENT_STRINGS = 1, /* a list of strings */
    RESTMAP_ARGUMENT_INTEGER = 2,
    RESTMAP_ARGUMENT_NUMBER = 3,
    RESTMAP_ARGUMENT_BOOLEAN = 4,
    RESTMAP_ARGUMENT_ANY = 5
} restmap_argument_kind;

/* The shape of one argument of a transformer or body decoder. Strings are NUL-terminated UTF-8. */
typedef struct restmap_argument_descriptor {
    const char *name;
    uint32_t kind;     /* a restmap_argument_kind */
    uint32_t required; /* 0 or 1 */
    const char *summary;
} restmap_argument_descriptor;

/* A transformer: its unqualified name ("parse" in plugin "dates" is "dates.parse"). */
typedef struct restmap_transformer_descriptor {
    const char *name;
    const char *summary;
    size_t argument_count;
    const restmap_argument_descriptor *arguments;
} restmap_transformer_descriptor;

/* A body decoder for one media type ("text/csv"): body bytes in, JSON bytes out. */
typedef struct restmap_body_decoder_descriptor {
    const char *media_type;
    const char *summary;
    size_t argument_count;
    const restmap_argument_descriptor *arguments;
} restmap_body_decoder_descriptor;

/* What a plugin exports. Every call receives `context` back as its first argument. */
typedef struct restmap_plugin_descriptor {
    uint32_t abi_version; /* RESTMAP_PLUGIN_ABI_VERSION; always the first field */
    const char *name;     /* the transformer namespace, e.g. "dates" */
    const char *version;  /* the plugin's own version, e.g. "1.0.0" */
    size_t transformer_count;
    const restmap_transformer_descriptor *transformers;
    size_t body_decoder_count;
    const restmap_body_decoder_descriptor *body_decoders;
    void *context;

    /* Makes a configured instance of transformers[index]. `arguments` is a JSON object (text). */
    int32_t (*make_transformer)(void *context, size_t index, const char *arguments, size_t arguments_length,
                                void **instance, restmap_buffer *error);
    /* Transforms one value (mapping direction). On success *output is filled; its text is the plugin's. */
    int32_t (*transform)(void *instance, const restmap_value *input, restmap_value *output, restmap_buffer *error);
    /* Transforms one value in the request direction. */
    int32_t (*reverse_transform)(void *instance, const restmap_value *input, restmap_value *output,
                                 restmap_buffer *error);
    /* Releases an instance made by make_transformer. */
    void (*destroy_transformer)(void *instance);
    /* Decodes a body with body_decoders[index]; *output receives JSON bytes. */
    int32_t (*decode_body)(void *context, size_t index, const uint8_t *body, size_t body_length,
                           const char *arguments, size_t arguments_length, restmap_buffer *output,
                           restmap_buffer *error);
    /* Releases bytes the plugin allocated (value text, output buffers, error messages). NULL is ignored. */
    void (*free_buffer)(void *bytes);
} restmap_plugin_descriptor;

/* The type of the exported entry symbol. */
typedef const restmap_plugin_descriptor *(*restmap_plugin_entry_fn)(void);

#endif
