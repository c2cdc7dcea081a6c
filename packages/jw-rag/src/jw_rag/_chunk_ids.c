/* Chunk ids in C: what jw_rag.chunkers._pieces computes in Python as

       head + hashlib.sha1(prefix + f"{sp}.{sc}-{ep}.{ec}".encode()).hexdigest()[:12]

   with SHA-1 written out after FIPS 180-4, section 6.1. Hashing a few dozen
   bytes costs far less here than the object overhead of hashlib for each
   chunk. Optional: when this module is not built, the Python line above runs.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    uint32_t h[5];
    unsigned char block[64];
    size_t used;    /* bytes waiting in block */
    uint64_t total; /* bytes hashed so far */
} sha1_ctx;

#define ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

static void sha1_compress(uint32_t h[5], const unsigned char *p)
{
    uint32_t w[80];
    for (int t = 0; t < 16; t++) {
        w[t] = ((uint32_t)p[4 * t] << 24) | ((uint32_t)p[4 * t + 1] << 16) |
               ((uint32_t)p[4 * t + 2] << 8) | (uint32_t)p[4 * t + 3];
    }
    for (int t = 16; t < 80; t++) {
        w[t] = ROTL(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int t = 0; t < 80; t++) {
        uint32_t f, k;
        if (t < 20) {
            f = (b & c) | (~b & d);
            k = 0x5A827999u;
        } else if (t < 40) {
            f = b ^ c ^ d;
            k = 0x6ED9EBA1u;
        } else if (t < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8F1BBCDCu;
        } else {
            f = b ^ c ^ d;
            k = 0xCA62C1D6u;
        }
        uint32_t tmp = ROTL(a, 5) + f + e + k + w[t];
        e = d;
        d = c;
        c = ROTL(b, 30);
        b = a;
        a = tmp;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

static void sha1_init(sha1_ctx *ctx)
{
    ctx->h[0] = 0x67452301u;
    ctx->h[1] = 0xEFCDAB89u;
    ctx->h[2] = 0x98BADCFEu;
    ctx->h[3] = 0x10325476u;
    ctx->h[4] = 0xC3D2E1F0u;
    ctx->used = 0;
    ctx->total = 0;
}

static void sha1_update(sha1_ctx *ctx, const unsigned char *data, size_t len)
{
    ctx->total += len;
    while (len > 0) {
        size_t take = 64 - ctx->used;
        if (take > len) {
            take = len;
        }
        memcpy(ctx->block + ctx->used, data, take);
        ctx->used += take;
        data += take;
        len -= take;
        if (ctx->used == 64) {
            sha1_compress(ctx->h, ctx->block);
            ctx->used = 0;
        }
    }
}

static void sha1_final(sha1_ctx *ctx, unsigned char out[20])
{
    uint64_t bits = ctx->total * 8;
    unsigned char pad = 0x80;
    sha1_update(ctx, &pad, 1);
    unsigned char zero = 0;
    while (ctx->used != 56) {
        sha1_update(ctx, &zero, 1);
    }
    unsigned char length[8];
    for (int i = 0; i < 8; i++) {
        length[i] = (unsigned char)(bits >> (56 - 8 * i));
    }
    sha1_update(ctx, length, 8);
    for (int i = 0; i < 5; i++) {
        out[4 * i] = (unsigned char)(ctx->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(ctx->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(ctx->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)ctx->h[i];
    }
}

/* What f"{value}" writes, appended to the hash: the digits of an int, and
   for anything else (bool, an int subclass, numpy's integers) its format(). */
static int hash_int(sha1_ctx *ctx, PyObject *value)
{
    if (PyLong_CheckExact(value)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (!overflow) {
            if (v == -1 && PyErr_Occurred()) {
                return -1;
            }
            char buf[32];
            int n = snprintf(buf, sizeof buf, "%lld", v);
            sha1_update(ctx, (const unsigned char *)buf, (size_t)n);
            return 0;
        }
    }
    PyObject *spec = PyUnicode_FromStringAndSize("", 0);
    if (spec == NULL) {
        return -1;
    }
    PyObject *text = PyObject_Format(value, spec);
    Py_DECREF(spec);
    if (text == NULL) {
        return -1;
    }
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(text, &n);
    if (s == NULL) {
        Py_DECREF(text);
        return -1;
    }
    sha1_update(ctx, (const unsigned char *)s, (size_t)n);
    Py_DECREF(text);
    return 0;
}

/* span_id(prefix: bytes, head: str, sp, sc, ep, ec) -> str */
static PyObject *span_id(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "span_id() takes 6 arguments (%zd given)", nargs);
        return NULL;
    }
    if (!PyBytes_Check(args[0]) || !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "span_id() needs prefix: bytes and head: str");
        return NULL;
    }
    sha1_ctx ctx;
    sha1_init(&ctx);
    sha1_update(&ctx, (const unsigned char *)PyBytes_AS_STRING(args[0]),
                (size_t)PyBytes_GET_SIZE(args[0]));
    static const unsigned char dot = '.', dash = '-';
    if (hash_int(&ctx, args[2]) < 0) {
        return NULL;
    }
    sha1_update(&ctx, &dot, 1);
    if (hash_int(&ctx, args[3]) < 0) {
        return NULL;
    }
    sha1_update(&ctx, &dash, 1);
    if (hash_int(&ctx, args[4]) < 0) {
        return NULL;
    }
    sha1_update(&ctx, &dot, 1);
    if (hash_int(&ctx, args[5]) < 0) {
        return NULL;
    }
    unsigned char digest[20];
    sha1_final(&ctx, digest);
    static const char hex[] = "0123456789abcdef";
    char text[12];
    for (int i = 0; i < 6; i++) {
        text[2 * i] = hex[digest[i] >> 4];
        text[2 * i + 1] = hex[digest[i] & 15];
    }
    PyObject *tail = PyUnicode_FromStringAndSize(text, 12);
    if (tail == NULL || PyUnicode_GET_LENGTH(args[1]) == 0) {
        return tail;
    }
    PyObject *out = PyUnicode_Concat(args[1], tail);
    Py_DECREF(tail);
    return out;
}

static PyMethodDef methods[] = {
    {"span_id", (PyCFunction)(void (*)(void))span_id, METH_FASTCALL,
     "span_id(prefix, head, sp, sc, ep, ec): head + the first 12 hex digits of "
     "SHA-1(prefix + b'sp.sc-ep.ec')."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "jw_rag._chunk_ids", "Chunk ids (SHA-1 of a span) in C.", -1, methods,
};

PyMODINIT_FUNC PyInit__chunk_ids(void)
{
    return PyModule_Create(&module);
}
