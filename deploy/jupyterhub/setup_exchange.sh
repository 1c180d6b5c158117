#!/bin/sh
# Prepare nbgrader's shared exchange for one course on a shared server, as root, once per
# course (re-running it is harmless: it only sets owners and modes again).
#
#   setup_exchange.sh [EXCHANGE_ROOT] [COURSE_ID] [GRADER_ACCOUNT]
#   (defaults: /srv/nbgrader/exchange gpu-barriers grader-gpu-barriers)
#
# What it makes, and why (README, "A class on a shared server"):
#   EXCHANGE_ROOT                root:root 0755  no student can create, rename or delete a
#                                                course folder (a 777 root lets them swap the
#                                                course for one of their own)
#   EXCHANGE_ROOT/COURSE         GRADER    0755  owned by the grader account, as nbgrader's
#                                                owner check wants; students may only read it
#   .../COURSE/outbound          GRADER    0755  releases: students read, only the grader writes
#   .../COURSE/inbound           GRADER    3733  submissions: students may add a folder but not
#                                                list the others (nbgrader's 2733) and, with the
#                                                sticky bit, never rename or delete another's
#   .../COURSE/feedback          GRADER    0711  feedback: a student opens only the file whose
#                                                name (a hash of their own submission) they know
#   ~GRADER                      GRADER    0700  the course folder, gradebook.db, solutions/
# The grader's account must exist (useradd -m GRADER). The machine-wide nbgrader config
# (deploy/jupyterhub/nbgrader_config.py) makes nbgrader accept a root it cannot write.
set -eu

EXCHANGE=${1:-/srv/nbgrader/exchange}
COURSE=${2:-gpu-barriers}
GRADER=${3:-grader-gpu-barriers}

if [ "$(id -u)" != 0 ]; then
    echo "setup_exchange.sh: run as root" >&2
    exit 2
fi
if ! id "$GRADER" >/dev/null 2>&1; then
    echo "setup_exchange.sh: no account '$GRADER' (useradd -m $GRADER first)" >&2
    exit 2
fi
case "$COURSE" in
    ""|*/*|.|..) echo "setup_exchange.sh: bad course id '$COURSE'" >&2; exit 2 ;;
esac

# the root and every folder above it: root's, entered by all, written by nobody else
mkdir -p "$EXCHANGE"
chown root:root "$EXCHANGE"
chmod 0755 "$EXCHANGE"

# the course folder (root makes it in the root-owned root and gives it to the grader) and
# its three parts, made by the grader (nbgrader's release checks that it owns them all)
course="$EXCHANGE/$COURSE"
if [ -e "$course" ] && [ "$(stat -c %U "$course")" != "$GRADER" ]; then
    echo "setup_exchange.sh: $course exists and is not owned by $GRADER; remove it first" >&2
    exit 1
fi
install -d -o "$GRADER" -g "$(id -gn "$GRADER")" -m 0755 "$course"
runuser -u "$GRADER" -- mkdir -p "$course/outbound" "$course/inbound" "$course/feedback"
chmod 0755 "$course" "$course/outbound"
chmod 3733 "$course/inbound"
chmod 0711 "$course/feedback"

# the grader's home (course folder, gradebook.db, solutions/) is the grader's alone
home=$(getent passwd "$GRADER" | cut -d: -f6)
chmod 0700 "$home"
echo "setup_exchange.sh: $course ready (owner $GRADER); $home is 0700"
