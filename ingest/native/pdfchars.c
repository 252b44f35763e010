/* pdfium's per-character text calls, looped in C.
 *
 * pdfium answers one character per call (FPDFText_GetLooseCharBox, FPDFText_GetMatrix, ...). From
 * Python each call goes through ctypes at ~0.4 us. The functions here take the address of the pdfium
 * function (from the library pypdfium2 already loaded) and call it for every char index given, so this
 * file needs no pdfium header and no linking: the result is exactly what the same calls return one by
 * one from Python. Used by the offline parser's layout pass (ingest/pdf_layout.py): the page's codes
 * when its bulk text does not line up, the font names of its lines, its reading direction and its lines.
 */
#include <stdint.h>

typedef int (*out_at_fn)(void *page, int index, void *out);          /* FPDF_BOOL f(page, i, struct*) */
typedef double (*double_at_fn)(void *page, int index);               /* FPDFText_GetFontSize */
typedef unsigned int (*uint_at_fn)(void *page, int index);           /* FPDFText_GetUnicode */
typedef int (*box4_fn)(void *page, int index, double *left, double *right, double *bottom,
                       double *top);                                  /* FPDFText_GetCharBox */

/* codes of chars 0..n-1 */
void mg_uint_range(uint_at_fn fn, void *page, int64_t n, uint32_t *out) {
    for (int64_t k = 0; k < n; k++) out[k] = fn(page, (int)k);
}

typedef unsigned long (*font_info_fn)(void *page, int index, void *buffer, unsigned long buflen,
                                      int *flags);                    /* FPDFText_GetFontInfo */

/* font name of char idx[k] into buf + k * slot (slot bytes each), its length (with the NUL) in len[k] */
void mg_font_info_at(font_info_fn fn, void *page, const int32_t *idx, int64_t n, char *buf, int64_t slot,
                     int32_t *flags, uint64_t *len) {
    for (int64_t k = 0; k < n; k++) len[k] = fn(page, idx[k], buf + k * slot, (unsigned long)slot, flags + k);
}

/* ---- a page's lines ------------------------------------------------------------------------------
 * The rules of pdf_layout's per-character pass (`_lines_char_by_char`, which states and comments them),
 * run over the page's characters here instead of in Python: same pdfium calls, same arithmetic in
 * double (built with -ffp-contract=off: no fused multiply-add, as Python does none), Python's rounding
 * (half to even: rint) and Python's float modulo. The parser compares this with its Python passes on
 * every corpus PDF (tests/unit/ingest/test_ingest_pdf_native.py). Python keeps the text: it gets each
 * line's box, type size, glyph count, first and last char index and where its printed text lies in one
 * buffer of code points for the page.
 */
#include <math.h>
#include <stdlib.h>

typedef struct { float left, top, right, bottom; } mg_rectf;   /* FS_RECTF */
typedef struct { float a, b, c, d, e, f; } mg_matrix;          /* FS_MATRIX */

enum { MG_ORDINARY = 0, MG_SPACE = 1, MG_SPECIAL = 2, MG_LINE_END = 3 };  /* pdf_layout._char_classes */
#define MG_PI 3.141592653589793  /* math.pi */
#define MG_QUARTER (MG_PI / 2)
#define MG_ANGLE_TOLERANCE 0.2
#define MG_MIN_SIZE 2.0

typedef struct {
    out_at_fn loose_box, matrix;
    double_at_fn font_size;
    box4_fn tight_box;
    void *page;
} mg_pdfium;

/* Python's float x % m for m > 0 */
static double py_mod(double x, double m) {
    double r = fmod(x, m);
    if (r != 0) {
        if (r < 0) r += m;
    } else {
        r = copysign(0.0, m);
    }
    return r;
}

/* pdf_layout._quarter: the direction char i advances in, 0-3 quarter turns; -1 unknown, 4 not axis-aligned */
static int quarter_of(out_at_fn matrix_fn, void *page, int i) {
    mg_matrix m;
    if (!matrix_fn(page, i, &m)) return -1;
    double a = m.a, b = m.b;
    if (a == 0 && b == 0) return -1;
    double q = py_mod(atan2(b, a), 2 * MG_PI) / MG_QUARTER;
    double r = rint(q);
    if (fabs(q - r) <= MG_ANGLE_TOLERANCE / MG_QUARTER) return (((int)r % 4) + 4) % 4;
    return 4;
}

/* pdf_layout._effective_size */
static double effective_size(const mg_pdfium *f, int i) {
    double size = f->font_size(f->page, i);
    mg_matrix m;
    if (size < 4 && f->matrix(f->page, i, &m)) {
        double scale = pow(fabs((double)m.a * (double)m.d - (double)m.b * (double)m.c), 0.5);
        if (scale > 0) size *= scale;
    }
    return rint(size * 2) / 2;
}

/* pdf_layout._reading_turn: the dominant direction of a sample of the page's chars */
int mg_reading_turn(out_at_fn matrix_fn, void *page, const uint32_t *codes, int64_t n) {
    int64_t step = n / 64 > 1 ? n / 64 : 1;
    int64_t votes[5] = {0, 0, 0, 0, 0};
    for (int64_t i = 0; i < n; i += step) {
        if (codes[i] <= 32) continue;
        int q = quarter_of(matrix_fn, page, (int)i);
        if (q >= 0) votes[q]++;
    }
    int best = 0;
    for (int q = 1; q < 4; q++)
        if (votes[q] > votes[best]) best = q;
    return votes[best] > votes[0] ? best : 0;
}

/* pdf_layout._to_frame (turn 1-3) */
static void to_frame(int turn, const double *mb, double left, double bottom, double right, double top,
                     double *out) {
    if (turn == 1) {
        out[0] = bottom - mb[1]; out[1] = mb[2] - right; out[2] = top - mb[1]; out[3] = mb[2] - left;
    } else if (turn == 2) {
        out[0] = mb[2] - right; out[1] = mb[3] - top; out[2] = mb[2] - left; out[3] = mb[3] - bottom;
    } else {
        out[0] = mb[3] - top; out[1] = left - mb[0]; out[2] = mb[3] - bottom; out[3] = right - mb[0];
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The line being built: its box, the type sizes its glyphs were measured at (distinct values in first-seen
 * order, with counts: the dominant one is the first with the most), the glyph heights of words without a
 * type size (and the tallest), and where its text starts in the page's buffer. */
typedef struct {
    double x0, y0, x1, y1;
    double *size_val;
    int64_t *size_count;
    int64_t sizes, last_size;
    double *heights;
    double tallest;
    int64_t n_heights;
    int64_t first, last, text_from, glyphs;
} mg_line;

/* the finished lines: per line 5 doubles (x0, y0, x1, y1, size) and 5 integers (glyphs, first char, last
 * char, text start, text end) */
typedef struct {
    double *f;
    int64_t *i;
    int64_t count;
} mg_lines;

static void line_reset(mg_line *ln, int64_t text_at) {
    ln->x0 = ln->y0 = 1e9;
    ln->x1 = ln->y1 = -1e9;
    ln->sizes = ln->n_heights = ln->glyphs = 0;
    ln->tallest = 0.0;
    ln->last_size = -1;
    ln->first = ln->last = -1;
    ln->text_from = text_at;
}

static void line_count_size(mg_line *ln, double size) {
    if (ln->last_size < 0 || ln->size_val[ln->last_size] != size) {
        int64_t k = 0;
        while (k < ln->sizes && ln->size_val[k] != size) k++;
        if (k == ln->sizes) {
            ln->size_val[k] = size;
            ln->size_count[k] = 0;
            ln->sizes++;
        }
        ln->last_size = k;
    }
    ln->size_count[ln->last_size]++;
}

static void line_add_height(mg_line *ln, double h) {
    if (ln->n_heights == 0 || h > ln->tallest) ln->tallest = h;
    ln->heights[ln->n_heights++] = h;
}

/* the line's type size (the per-char pass's flush): the most used, else one from its glyph heights */
static double line_size(mg_line *ln) {
    double dom = 0.0;
    int64_t most = 0;
    for (int64_t k = 0; k < ln->sizes; k++)
        if (ln->size_count[k] > most) {
            most = ln->size_count[k];
            dom = ln->size_val[k];
        }
    if (dom < MG_MIN_SIZE && ln->n_heights) {  /* pdf_layout._size_from_heights */
        qsort(ln->heights, (size_t)ln->n_heights, sizeof(double), cmp_double);
        double tall = ln->heights[(int64_t)(0.9 * (double)(ln->n_heights - 1))];
        dom = rint(tall / 0.72 * 2) / 2;
    }
    return dom;
}

/* the per-char pass's flush: a line with a glyph is kept; the next one's text starts at t */
static void flush_line(mg_line *ln, mg_lines *out, int64_t t) {
    if (ln->first >= 0) {
        double *f = out->f + 5 * out->count;
        int64_t *i = out->i + 5 * out->count;
        f[0] = ln->x0; f[1] = ln->y0; f[2] = ln->x1; f[3] = ln->y1; f[4] = line_size(ln);
        i[0] = ln->glyphs; i[1] = ln->first; i[2] = ln->last; i[3] = ln->text_from; i[4] = t;
        out->count++;
    }
    line_reset(ln, t);
}

/* pdf_layout._gap_size */
static double gap_size(const mg_line *ln, double size, double height) {
    if (size >= MG_MIN_SIZE) return size;
    return (ln->tallest > height ? ln->tallest : height) / 0.6;
}

/* pdf_layout._effective_size, and whether it is no usable type size */
static double read_size(const mg_pdfium *f, int i, int *small) {
    double size = effective_size(f, i);
    *small = size < MG_MIN_SIZE;
    return size;
}

/* Build a page's lines. codes: the n chars' code points (`exact`: one per char, so the char after a soft
 * hyphen can be looked at); classes: pdf_layout's char class table by code (entry 0x10000 for the codes
 * above); turn and mb: the reading frame. Out: text (room for 4n code points: a word gap and a three-letter
 * ligature per char at most) holds the printed text, *text_len its length; line_f and line_i (room for n
 * lines) the lines as in mg_lines. Returns the number of lines, -1 when out of memory. */
int64_t mg_page_lines(out_at_fn loose_box, out_at_fn matrix, double_at_fn font_size, box4_fn tight_box,
                      void *page, const uint32_t *codes, int64_t n, int exact, const int8_t *classes, int turn,
                      const double *mb, uint32_t *text, int64_t *text_len, double *line_f, int64_t *line_i) {
    static const char *ligatures[] = {"ff", "fi", "fl", "ffi", "ffl"};  /* TeX OT1 slots 0x0B-0x0F */
    mg_pdfium f = {loose_box, matrix, font_size, tight_box, page};
    mg_lines out = {line_f, line_i, 0};
    mg_line ln;
    ln.size_val = malloc(sizeof(double) * (size_t)(n + 1));
    ln.size_count = malloc(sizeof(int64_t) * (size_t)(n + 1));
    ln.heights = malloc(sizeof(double) * (size_t)(n + 1));
    if (!ln.size_val || !ln.size_count || !ln.heights) {
        free(ln.size_val); free(ln.size_count); free(ln.heights);
        return -1;
    }
    int64_t t = 0;                          /* text written so far */
    double tl = 0, tr = 0, tb = 0, tt = 0;  /* the glyph box keeps its last values when pdfium has none */
    double size = 0.0, last_base = 0.0, last_x1 = 0.0;
    int small = 0, new_word = 1, has_last_base = 0, has_last_x1 = 0;
    line_reset(&ln, 0);
    for (int64_t i = 0; i < n; i++) {
        uint32_t cp = codes[i];
        int cls = classes[cp > 0x10000 ? 0x10000 : cp];
        mg_rectf r;
        if (cls == MG_LINE_END) {
            flush_line(&ln, &out, t);
            has_last_base = 0;
            new_word = 1;
            continue;
        }
        if (cls == MG_SPACE) {
            if (t > ln.text_from) text[t++] = ' ';
            new_word = 1;
            continue;
        }
        const char *lig = NULL;
        uint32_t ch = cp;
        if (cls == MG_SPECIAL) {
            uint32_t nxt = exact && i + 1 < n ? codes[i + 1] : 10;
            if (cp >= 0x0B && cp <= 0x0F) {
                lig = ligatures[cp - 0x0B];
            } else if (cp != 0xAD || nxt == 10 || nxt == 13) {
                ch = '-';  /* a soft-hyphen marker, or a soft hyphen at a line end */
            } else {  /* a soft hyphen inside a line prints nothing but takes its width */
                if (loose_box(page, (int)i, &r)) {
                    double b[4] = {r.left, r.bottom, r.right, r.top};
                    if (turn) to_frame(turn, mb, b[0], b[1], b[2], b[3], b);
                    last_x1 = b[2];
                    has_last_x1 = 1;
                }
                continue;
            }
        }
        if (!loose_box(page, (int)i, &r)) continue;
        if (new_word) {
            int q = quarter_of(matrix, page, (int)i);
            if (q != turn && q >= 0) continue;  /* a word in another direction: left out */
            size = read_size(&f, (int)i, &small);
            new_word = 0;
        }
        double b[4] = {r.left, r.bottom, r.right, r.top};
        if (small) {
            tight_box(page, (int)i, &tl, &tr, &tb, &tt);
            b[0] = tl; b[1] = tb; b[2] = tr; b[3] = tt;
        }
        if (turn) to_frame(turn, mb, b[0], b[1], b[2], b[3], b);
        double x0 = b[0], base = b[1], x1 = b[2], top = b[3];
        if (has_last_base && has_last_x1 && t > ln.text_from) {
            double h = top - base, lh = ln.y1 - ln.y0;
            double lo = h < lh ? h : lh, hi = h > lh ? h : lh;
            double overlap = (top < ln.y1 ? top : ln.y1) - (base > ln.y0 ? base : ln.y0);
            double jump = h * 0.6 > 2.0 ? h * 0.6 : 2.0;
            if ((fabs(base - last_base) > jump && (overlap < 0.5 * lo || lo < 0.4 * hi))
                || x0 < last_x1 - 50 || x0 - last_x1 > 40) {
                flush_line(&ln, &out, t);
                size = read_size(&f, (int)i, &small);
            }
        }
        if (t > ln.text_from && has_last_x1 && x0 - last_x1 > 1.0 && text[t - 1] != ' ') {
            double g = gap_size(&ln, size, top - base);
            if (x0 - last_x1 > 0.25 * (4.0 > g ? 4.0 : g)) {
                text[t++] = ' ';  /* a word gap without a space char */
                size = read_size(&f, (int)i, &small);
            }
        }
        if (ln.first < 0) ln.first = i;
        ln.last = i;
        if (lig) {
            for (const char *c = lig; *c; c++) text[t++] = (uint32_t)*c;
        } else {
            text[t++] = ch;
        }
        ln.glyphs++;
        line_count_size(&ln, size);
        if (small) line_add_height(&ln, top - base);
        if (x0 < ln.x0) ln.x0 = x0;
        if (base < ln.y0) ln.y0 = base;
        if (x1 > ln.x1) ln.x1 = x1;
        if (top > ln.y1) ln.y1 = top;
        last_base = base;
        last_x1 = x1;
        has_last_base = has_last_x1 = 1;
    }
    flush_line(&ln, &out, t);
    *text_len = t;
    free(ln.size_val); free(ln.size_count); free(ln.heights);
    return out.count;
}
