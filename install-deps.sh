#!/usr/bin/env bash
# install-deps.sh: install the Debian/Ubuntu packages adelim's build and
# tests need, as root directly or through sudo otherwise. With --clients it
# also installs the optional solver clients the examples feed (SUNDIALS,
# Ipopt, PETSc with OpenMPI; doc/user-guide.md), which CI builds and tests.
set -euo pipefail

packages=(build-essential autoconf automake libtool pkg-config libzstd-dev
  libunwind-dev libxxhash-dev libxml2-dev check)
case "${1:-}" in
  --clients) packages+=(libsundials-dev coinor-libipopt-dev petsc-dev) ;;
  "") ;;
  *) echo "usage: install-deps.sh [--clients]" >&2; exit 2 ;;
esac

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps.sh: apt-get not found; install these packages (or their" \
    "equivalents) with your system's package manager: ${packages[*]}" >&2
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install-deps.sh: need root to install packages, and sudo is not available;" \
    "run this script as root (e.g. su -c ./install-deps.sh)" >&2
  exit 1
fi

${as_root[@]+"${as_root[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get update -qq
${as_root[@]+"${as_root[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
echo "install-deps.sh: dependencies installed"
