# doc/local.mk: the man page, written in pandoc markdown. The generated
# adelim.1 is committed, so building and installing never need pandoc.
dist_man_MANS += %D%/adelim.1
EXTRA_DIST += %D%/adelim.1.md %D%/user-guide.md %D%/tape-format.md \
	%D%/elimination.md %D%/order-growth.svg %D%/order-growth.txt %D%/hessians.md %D%/reliability.md %D%/missions.md

# Maintainer rule: `make update-man` after editing adelim.1.md (needs pandoc).
.PHONY: update-man
update-man:
	pandoc -s -t man $(srcdir)/%D%/adelim.1.md -o $(srcdir)/%D%/adelim.1
