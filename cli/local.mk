# cli/local.mk
