#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/lustre-fs/run-rails.sh [WORKDIR] - make check's name for
# `tests/vm/lustre-fs/run.sh rails`: UDSP on Lustre's traffic, two guests
# joined by two rails (see run.sh and rails.sh).
exec bash "$(dirname "$0")/run.sh" rails "$@"
