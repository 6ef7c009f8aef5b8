/* ops.c: the operation table's names, arities and flags. */
#include "common_internal.h"
#include "ops_internal.h"

const ade__opinfo ade__optab[ADE_OP_COUNT] = {
#define ADE__OP_INFO(N, s, k, f) {s, k, f},
    ADE_OPS(ADE__OP_INFO)
#undef ADE__OP_INFO
};

const char *ade_op_name(int opcode) {
  if (opcode == ADE_OP_VECTOR_ELEMENTAL) return "elemental";
  if (opcode < 0 || opcode >= ADE_OP_COUNT) return NULL;
  return ade__optab[opcode].name;
}
