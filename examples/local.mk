# examples/local.mk
