#!/bin/sh
# scripts/meshes.sh: generate the large meshes the S3 scenarios read (meshes/generated/).
# Needs a built bristle: the first argument, default ./build/bristle. Safe to run again.
set -eu
cd "$(dirname "$0")/.."
B="${1:-./build/bristle}"
mkdir -p meshes/generated
# annulus R_i = 0.05, R_o = 0.1 m: (n_radial + 1) * n_around vertices
[ -f meshes/generated/annulus_1e4.ply ] || $B mesh annulus --r-in 0.05 --r-out 0.1 --n-radial 31 --n-around 320 --out meshes/generated/annulus_1e4.ply
[ -f meshes/generated/annulus_1e5.ply ] || $B mesh annulus --r-in 0.05 --r-out 0.1 --n-radial 99 --n-around 1000 --out meshes/generated/annulus_1e5.ply
[ -f meshes/generated/annulus_1e6.ply ] || $B mesh annulus --r-in 0.05 --r-out 0.1 --n-radial 315 --n-around 3170 --out meshes/generated/annulus_1e6.ply
# S3b: the cube's bottom face as a regular grid of 100 x 100 = 1e4 vertices (0.1 m square, normals -z)
[ -f meshes/generated/cube_face_1e4.ply ] || $B mesh grid --size 0.1 0.1 --count 99 99 --out meshes/generated/cube_face_1e4.ply
# S3c: a tie-boss face, 0.02 (X) x 0.0245 (Z) m, as 10 x 10, 32 x 32 and 100 x 100 vertices (normals +z;
# the scenarios turn them onto the faces)
[ -f meshes/generated/tieboss_1e2.ply ] || $B mesh grid --size 0.02 0.0245 --count 9 9 --facing +z --out meshes/generated/tieboss_1e2.ply
[ -f meshes/generated/tieboss_1e3.ply ] || $B mesh grid --size 0.02 0.0245 --count 31 31 --facing +z --out meshes/generated/tieboss_1e3.ply
[ -f meshes/generated/tieboss_1e4.ply ] || $B mesh grid --size 0.02 0.0245 --count 99 99 --facing +z --out meshes/generated/tieboss_1e4.ply
# S8a: the microslip patch, 0.3 x 0.3 mm as 120 x 120 vertices (2.5 um spacing; in mm: the scenario reads
# it with units 1e-3), normals +z, toward
# the sphere above it)
[ -f meshes/generated/microslip_patch.ply ] || $B mesh grid --size 0.3 0.3 --count 119 119 --facing +z --out meshes/generated/microslip_patch.ply
