#!/usr/bin/env bash
# A single-node Slurm on localhost for cosim-sweep's Slurm tests (docs/sweeps.md "On a Slurm
# cluster"), as root: Debian's slurm-wlm and munge, installed when missing, run in the
# foreground in the background, their state, logs and pids in DIR.
#   scripts/slurm/cluster.sh start DIR   write DIR/slurm.conf, start munged (unless one runs),
#                                        slurmctld and slurmd; wait until the node is idle;
#                                        prints the SLURM_CONF to export
#   scripts/slurm/cluster.sh stop DIR    stop exactly the daemons `start` started
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
what=${1:?start or stop}
dir=${2:?the folder of the cluster}
say() { echo "slurm-cluster: $*" >&2; }

stop() {
  local name pid
  for name in slurmd slurmctld munged; do
    [ -f "$dir/$name.started" ] || continue
    pid=$(cat "$dir/$name.started")
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      # slurmctld would take ~6 s to save a state nobody reads again: 2 s, then it is killed.
      for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$dir/$name.started"
  done
}

if [ "$what" = stop ]; then
  stop
  exit 0
fi
[ "$what" = start ] || { say "usage: cluster.sh start|stop DIR"; exit 2; }
[ "$(id -u)" -eq 0 ] || { say "needs root (slurmd runs jobs as their users)"; exit 2; }
. "$root/scripts/lib/packages.sh"
ensure_packages --no-recommends slurm
mkdir -p "$dir/state" "$dir/spool"
dir=$(cd "$dir" && pwd)
cpus=$(nproc)
# One key per line: several on one line are a parse error and no daemon. slurm.conf does not
# expand variables: real paths. linuxproc + task/none: no cgroups left behind.
cat > "$dir/slurm.conf" <<CONF
ClusterName=cosimtest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.log
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MailProg=/bin/true
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
trap 'stop' ERR
if ! pgrep -x munged >/dev/null; then
  mkdir -p /run/munge && chown munge:munge /run/munge
  runuser -u munge -- /usr/sbin/munged -F > "$dir/munged.out" 2>&1 < /dev/null &
  echo $! > "$dir/munged.started"
  for _ in $(seq 1 50); do [ -S /run/munge/munge.socket.2 ] && break; sleep 0.1; done
fi
slurmctld -D -i -f "$dir/slurm.conf" > "$dir/slurmctld.out" 2>&1 < /dev/null &
echo $! > "$dir/slurmctld.started"
slurmd -D -N localhost -f "$dir/slurm.conf" > "$dir/slurmd.out" 2>&1 < /dev/null &
echo $! > "$dir/slurmd.started"
for _ in $(seq 1 300); do
  state=$(SLURM_CONF="$dir/slurm.conf" sinfo -h -N -o %t 2>/dev/null || true)
  [ "$state" = idle ] && { say "up: SLURM_CONF=$dir/slurm.conf"; echo "$dir/slurm.conf"; exit 0; }
  sleep 0.1
done
say "the node did not become idle within 30 s (state '${state:-none}'); logs in $dir"
stop
exit 1
