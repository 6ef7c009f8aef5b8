# hessian/local.mk: Hessians.
