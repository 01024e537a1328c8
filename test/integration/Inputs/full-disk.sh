#!/bin/sh
# Usage: unshare -rm sh full-disk.sh FOLDER FILE COMMAND...
#
# Mounts a 64 KiB tmpfs on FOLDER (in the mount namespace of its own that
# `unshare -rm` gives, so nothing outside sees it and it goes away with the
# process), writes "old bytes" to FOLDER/FILE, fills the rest of the disk,
# runs COMMAND and prints its output, its exit code, whether FILE kept its
# old bytes byte for byte, and what else FOLDER holds.
set -u
folder=$1
file=$2
shift 2
mount -t tmpfs -o size=64k tmpfs "$folder" || exit 99
printf 'old bytes\n' > "$folder/$file"
head -c 1000000 /dev/zero > "$folder/.filler" 2> /dev/null
"$@" 2>&1
echo "exit=$?"
if printf 'old bytes\n' | cmp -s - "$folder/$file"; then
  echo "old file: kept"
else
  echo "old file: changed"
fi
ls -A "$folder" | grep -v -x -e "$file" -e .filler | sed 's/^/left: /'
echo "end"
