/* pdfium's per-character text calls, looped in C.
 *
 * pdfium answers one character per call (FPDFText_GetLooseCharBox, FPDFText_GetMatrix, ...). From
 * Python each call goes through ctypes at ~0.4 us, which is most of the offline parser's layout pass.
 * These loops take the address of the pdfium function (from the library pypdfium2 already loaded)
 * and call it for every char index given, so this file needs no pdfium header and no linking: the
 * result is exactly what the same calls return one by one from Python.
 */
#include <stdint.h>

typedef int (*out_at_fn)(void *page, int index, void *out);          /* FPDF_BOOL f(page, i, struct*) */
typedef double (*double_at_fn)(void *page, int index);               /* FPDFText_GetFontSize */
typedef unsigned int (*uint_at_fn)(void *page, int index);           /* FPDFText_GetUnicode */
typedef int (*box4_fn)(void *page, int index, double *left, double *right, double *bottom,
                       double *top);                                  /* FPDFText_GetCharBox */

/* ok[k] = fn(page, idx[k], out + k * stride) != 0 */
void mg_out_at(out_at_fn fn, void *page, const int32_t *idx, int64_t n, char *out, int64_t stride,
               uint8_t *ok) {
    for (int64_t k = 0; k < n; k++) ok[k] = fn(page, idx[k], out + k * stride) != 0;
}

void mg_double_at(double_at_fn fn, void *page, const int32_t *idx, int64_t n, double *out) {
    for (int64_t k = 0; k < n; k++) out[k] = fn(page, idx[k]);
}

/* codes of chars 0..n-1 */
void mg_uint_range(uint_at_fn fn, void *page, int64_t n, uint32_t *out) {
    for (int64_t k = 0; k < n; k++) out[k] = fn(page, (int)k);
}

/* out rows: left, right, bottom, top (the order FPDFText_GetCharBox writes them) */
void mg_box4_at(box4_fn fn, void *page, const int32_t *idx, int64_t n, double *out, uint8_t *ok) {
    for (int64_t k = 0; k < n; k++) {
        double *row = out + 4 * k;
        ok[k] = fn(page, idx[k], row, row + 1, row + 2, row + 3) != 0;
    }
}

typedef unsigned long (*font_info_fn)(void *page, int index, void *buffer, unsigned long buflen,
                                      int *flags);                    /* FPDFText_GetFontInfo */

/* font name of char idx[k] into buf + k * slot (slot bytes each), its length (with the NUL) in len[k] */
void mg_font_info_at(font_info_fn fn, void *page, const int32_t *idx, int64_t n, char *buf, int64_t slot,
                     int32_t *flags, uint64_t *len) {
    for (int64_t k = 0; k < n; k++) len[k] = fn(page, idx[k], buf + k * slot, (unsigned long)slot, flags + k);
}
