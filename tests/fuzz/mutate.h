/* mutate.h: a structure-aware tape mutator that keeps every checksum valid (tests/fuzz/README). */
#ifndef ADE_FUZZ_MUTATE_H
#define ADE_FUZZ_MUTATE_H

#include <stddef.h>
#include <stdint.h>

/* Recompute every checksum of a tape's bytes in place (header, frame
 * headers, payloads, trailer): walks the frames from the header on and the
 * footer frame named by the trailer. */
void mt_fix_sums(unsigned char *p, size_t n);

/* A checksum-valid structural mutant of the tape in[0..n): the tape is
 * decoded through the library (records, operands, constants, values,
 * footer lists, regions, diagnostics), one to three mutations drawn from
 * *rng are applied, and it is re-encoded with the library's own chunk and
 * footer writers. *out (malloc'd, the caller frees it) and *outn get the
 * bytes; *what (may be NULL) a static name of the last mutation applied.
 * @return 0, or -1 if in does not decode (no mutant). */
int mt_mutate(const unsigned char *in, size_t n, uint64_t *rng, unsigned char **out, size_t *outn,
              const char **what);

/* A tape whose every chunk claims `claim` records (header, frames and
 * footer agree, the footer's record count is their sum, checksums valid)
 * while holding the records of in: a memory bomb the bytes cannot back.
 * pad: chunks are padded so that the claim passes the size checks of the
 * chunk index (codec 1 with a raw size of claim + 28), and the bomb is
 * refused only when a chunk is read. @return 0, or -1 if in does not decode. */
int mt_claim_records(const unsigned char *in, size_t n, uint32_t claim, int pad, unsigned char **out,
                     size_t *outn);

#endif
