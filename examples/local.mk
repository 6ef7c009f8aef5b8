# examples/local.mk: small instrumented C programs users can copy.
# They use only <adelim.h> and link the shared library, as a user's program
# would. `make check` runs each one and compares its output with the
# committed examples/NAME.out (examples/run-example.sh).
EXAMPLE_CPPFLAGS = -I$(top_srcdir)/include
EXAMPLE_LDADD = libadelim.la $(ADE_DEPS_LIBS)

noinst_PROGRAMS += %D%/quickstart %D%/speelpenning %D%/pde %D%/pde-plain %D%/motivating %D%/newton %D%/euler

%C%_quickstart_SOURCES = %D%/quickstart.c
%C%_quickstart_CPPFLAGS = $(EXAMPLE_CPPFLAGS)
%C%_quickstart_LDADD = $(EXAMPLE_LDADD)

%C%_speelpenning_SOURCES = %D%/speelpenning.c
%C%_speelpenning_CPPFLAGS = $(EXAMPLE_CPPFLAGS)
%C%_speelpenning_LDADD = $(EXAMPLE_LDADD)

# The motivating example of the face-elimination paper (Section 2).
%C%_motivating_SOURCES = %D%/motivating.c
%C%_motivating_CPPFLAGS = $(EXAMPLE_CPPFLAGS)
%C%_motivating_LDADD = $(EXAMPLE_LDADD)

# Newton's method with a Jacobian loop; a branch flips between iterates.
%C%_newton_SOURCES = %D%/newton.c
%C%_newton_CPPFLAGS = $(EXAMPLE_CPPFLAGS)
%C%_newton_LDADD = $(EXAMPLE_LDADD)

# An AD mission from a recorded program: an implicit Euler step's regions.
%C%_euler_SOURCES = %D%/euler.c
%C%_euler_CPPFLAGS = $(EXAMPLE_CPPFLAGS)
%C%_euler_LDADD = $(EXAMPLE_LDADD)

# One simulation source built twice: recording, and as plain double code
# that needs nothing but libm.
%C%_pde_SOURCES = %D%/pde.c %D%/pde_sim.h
%C%_pde_CPPFLAGS = $(EXAMPLE_CPPFLAGS)
%C%_pde_LDADD = $(EXAMPLE_LDADD)
%C%_pde_plain_SOURCES = %D%/pde.c %D%/pde_sim.h
%C%_pde_plain_CPPFLAGS = $(EXAMPLE_CPPFLAGS) -DPDE_PLAIN
%C%_pde_plain_LDADD =

EXAMPLE_TESTS = %D%/quickstart.test %D%/speelpenning.test %D%/pde.test \
	%D%/pde-plain.test %D%/motivating.test %D%/newton.test %D%/euler.test
EXAMPLE_OUTS = %D%/quickstart.out %D%/speelpenning.out %D%/pde.out \
	%D%/pde-plain.out %D%/motivating.out %D%/newton.out %D%/euler.out
TESTS += $(EXAMPLE_TESTS)
EXTRA_DIST += $(EXAMPLE_TESTS) $(EXAMPLE_OUTS) %D%/run-example.sh
CLEANFILES += %D%/*.adt %D%/*.stdout %D%/*.want %D%/*.got

# Ipopt (configure --with-ipopt, default when present): a nonlinear program
# with adelim's gradient, constraint Jacobian and Lagrangian Hessian,
# against Ipopt's L-BFGS. The test checks outcomes, not a .out file (its
# output has timings).
if HAVE_IPOPT
noinst_PROGRAMS += %D%/ipopt_lv
%C%_ipopt_lv_SOURCES = %D%/ipopt_lv.c %D%/ipopt_lv.h %D%/lv_problem.h
%C%_ipopt_lv_CPPFLAGS = $(EXAMPLE_CPPFLAGS) $(IPOPT_CFLAGS)
%C%_ipopt_lv_LDADD = $(EXAMPLE_LDADD) $(IPOPT_LIBS)
TESTS += %D%/ipopt_lv.test
endif
EXTRA_DIST += %D%/ipopt_lv.c %D%/ipopt_lv.h %D%/lv_problem.h %D%/ipopt_lv.test

# The expected outputs are sources. Without a rule of their own, make's
# built-in rule `%.out: %' would "remake" examples/pde.out by copying the
# program examples/pde over it (make dist does ask for it).
$(EXAMPLE_OUTS): ;

# PETSc SNES on a distributed 2-D Bratu problem, every MPI rank's Jacobian
# rows from its own tape, against PETSc's colored finite differences
# (configure --with-petsc; doc/user-guide.md, "PETSc"). examples/petsc.test
# runs it under mpiexec on 1 and 2 ranks in its -check mode, which verifies
# the outcomes itself (iteration counts and timings vary: no .out file).
if HAVE_PETSC
noinst_PROGRAMS += %D%/petsc_bratu
%C%_petsc_bratu_SOURCES = %D%/petsc_bratu.c %D%/bratu_kernel.h
%C%_petsc_bratu_CPPFLAGS = $(EXAMPLE_CPPFLAGS)
%C%_petsc_bratu_CFLAGS = $(AM_CFLAGS) $(PETSC_CFLAGS)
%C%_petsc_bratu_LDADD = $(EXAMPLE_LDADD) $(PETSC_LIBS)
TESTS += %D%/petsc.test
endif
EXTRA_DIST += %D%/petsc_bratu.c %D%/bratu_kernel.h %D%/petsc.test
# CVODE (SUNDIALS) with Jacobians from adelim: a stiff 1-D Brusselator
# against CVODE's banded difference quotients (configure --with-sundials).
# Its numbers vary with the machine: examples/cvode.test runs it with
# --check, which verifies its outcomes itself, instead of comparing output.
if HAVE_SUNDIALS
noinst_PROGRAMS += %D%/cvode_brusselator
TESTS += %D%/cvode.test
endif
%C%_cvode_brusselator_SOURCES = %D%/cvode_brusselator.c %D%/brusselator.h
%C%_cvode_brusselator_CPPFLAGS = $(EXAMPLE_CPPFLAGS) $(SUNDIALS_CFLAGS)
%C%_cvode_brusselator_LDADD = $(EXAMPLE_LDADD) $(SUNDIALS_LIBS)
EXTRA_DIST += %D%/cvode.test
