#!/bin/bash
# Install what distmpmd needs (Debian 12, as root) when it is missing, then
# build it.  Safe to run again: installed packages are left alone.
set -euo pipefail
PKGS="build-essential pkg-config libisl-dev mpich libmpich-dev openmpi-bin
libopenmpi-dev
libopenblas-dev libyaml-dev python3 python3-numpy python3-yaml valgrind
groff-base man-db util-linux bsdutils"
missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
            grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -n "$missing" ]; then
    echo "setup: installing$missing"
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
        --no-install-recommends $missing
fi
cd "$(dirname "$0")"
make -j2 all
