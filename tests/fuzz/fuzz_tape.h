/* fuzz_tape.h: the tape harness's entry point and its counts of the entry points each input reached. */
#ifndef ADE_FUZZ_TAPE_H
#define ADE_FUZZ_TAPE_H

#include <stddef.h>
#include <stdint.h>

/* Library entry points the harness drives; FUZZ_VERIFIED counts inputs
 * ade_tape_verify accepted. */
#define FUZZ_ENTRY_MAP(X)                                                      \
  X(OPENED, "opened") X(VERIFIED, "verified") X(REPLAY, "replay")              \
  X(TANGENT, "tangent") X(ADJOINT, "adjoint") X(GRADIENT, "gradient")          \
  X(JACOBIAN, "dense jacobian") X(LIVE, "live adjoints / point")               \
  X(CGRAPH, "cgraph") X(ORDER, "orderings") X(ELIM_JAC, "ade_jacobian")        \
  X(OPTIMIZE, "optimize") X(CPR, "cpr") X(PLAN, "plan") X(HESSIAN, "hessian") \
  X(LOOP, "plan cache / loop") X(CODEGEN, "codegen") X(PARTS, "parts")       \
  X(HESS_PLAN, "hessian plans") X(SEQFILE, "sequence files")
enum fuzz_entry {
#define FUZZ_ENUM(N, s) FUZZ_##N,
  FUZZ_ENTRY_MAP(FUZZ_ENUM)
#undef FUZZ_ENUM
  FUZZ_NENTRIES
};

/* Per entry point: inputs that called it, and those where it returned ADE_OK
 * (or a warning) at least once. */
extern size_t fuzz_reached[FUZZ_NENTRIES], fuzz_ok[FUZZ_NENTRIES];
extern const char *const fuzz_entry_name[FUZZ_NENTRIES];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The vector elementals the harness registers (once, on its first input):
 * "fuzz.rot" (2 -> 2) and "fuzz.sum3" (3 -> 1, with a Jacobian), so
 * tapes that call them reach every sweep through their callbacks. */
void fuzz_register_elementals(void);

#endif
