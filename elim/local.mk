# elim/local.mk: Jacobians by elimination.
