#!/bin/sh
# scripts/fetch-deps.sh: download, on a machine that reaches the Debian
# archive, the .deb files Bristle builds and runs against into .deps/debs/
# (ignored by git), for a machine that reaches no package registry (the GPU
# machine: CUDA and CMake, nothing else). benchmarks/gpu-check.sh unpacks them
# into .deps/root with `dpkg -x` and builds against that prefix.
#   usage: sh scripts/fetch-deps.sh
# The list: the -dev packages of scripts/setup.sh; the -dev packages whose
# pkg-config files those pull in (cairo's and criterion's Requires); the
# runtime libraries `ldd` lists for bristle and the test programs, less the C
# and C++ runtime (libc6, libgcc-s1, libstdc++6, libgomp1), which the machine's
# own compiler brings; and pkgconf, in case the machine has no pkg-config. libmatio (MATLAB files,
# docs/structures.md) brings HDF5 and its network libraries.
set -eu
cd "$(dirname "$0")/.."
DEV="libyaml-dev libcjson-dev libcairo2-dev libpng-dev liblapacke-dev libopenblas-pthread-dev
libassimp-dev libsundials-dev libcriterion-dev libboxfort-dev libsuitesparse-dev libmatio-dev libhdf5-dev
libbrotli-dev libexpat1-dev libffi-dev libfontconfig-dev libfreetype-dev libgit2-dev libglib2.0-dev
libnanomsg-dev libpcre2-dev libpixman-1-dev libx11-dev libxau-dev libxcb-render0-dev libxcb-shm0-dev
libxcb1-dev libxdmcp-dev libxext-dev libxrender-dev x11proto-dev zlib1g-dev"
RUNTIME="libassimp5 libbrotli1 libbsd0 libcairo2 libcjson1 libcriterion3 libdraco7 libffi8
libfontconfig1 libfreetype6 libexpat1 libgfortran5 libquadmath0 libgit2-1.5 libgssapi-krb5-2
libhttp-parser2.9 libk5crypto3 libkrb5-3 libkrb5support0 libkeyutils1 libcom-err2 liblapacke libtmglib3
libmbedcrypto7 libmbedtls14 libmbedx509-1 libmd0 libminizip1 libnanomsg5 libopenblas0-pthread
libpcre2-8-0 libpixman-1-0 libpng16-16 libssh2-1 libssl3 libx11-6 libxau6 libxcb-render0 libxcb-shm0
libxcb1 libxdmcp6 libxext6 libxrender1 libyaml-0-2 zlib1g
libsundials-cvode6 libsundials-nvecserial6 libsundials-sunlinsol3 libsundials-sunmatrix4
libcholmod3 libsuitesparseconfig5 libamd2 libcamd2 libccolamd2 libcolamd2 libmetis5 libmatio11
libhdf5-103-1 libsz2 libaec0 libcurl4 libgmp10 libgnutls30 libhogweed6 libidn2-0 libldap-2.5-0 libnettle8
libnghttp2-14 libp11-kit0 libpsl5 librtmp1 libsasl2-2 libtasn1-6 libunistring2 libzstd1"
TOOLS="pkgconf pkgconf-bin libpkgconf3"
mkdir -p .deps/debs
cd .deps/debs
# shellcheck disable=SC2086
apt-get download $DEV $RUNTIME $TOOLS
echo "fetch-deps: $(ls ./*.deb | wc -l) packages, $(du -sh . | cut -f1) in .deps/debs"
