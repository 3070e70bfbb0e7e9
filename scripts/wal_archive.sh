#!/usr/bin/env bash
# PostgreSQL's archive_command: copy one finished WAL segment into the archive.
#
#   archive_command = '/app/scripts/wal_archive.sh %p %f /backups/wal'
#
# Never overwrites a segment already archived (a second copy of the same name
# is refused unless identical, as PostgreSQL's documentation asks), and
# writes through a temporary name so a half-copied segment is never seen.
# A non-zero exit makes PostgreSQL keep the segment and retry.
set -euo pipefail
path=${1:?usage: wal_archive.sh %p %f ARCHIVE_DIR}
name=${2:?usage: wal_archive.sh %p %f ARCHIVE_DIR}
archive=${3:?usage: wal_archive.sh %p %f ARCHIVE_DIR}
if [ -f "$archive/$name" ]; then
    cmp -s "$path" "$archive/$name"     # the same segment again: fine; another: refuse
    exit $?
fi
cp "$path" "$archive/$name.partial"
sync "$archive/$name.partial" 2>/dev/null || true
mv "$archive/$name.partial" "$archive/$name"
