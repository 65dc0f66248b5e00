"""What the gang templates own at launch time: ports, paths and the launcher flags teams may not set.

A team writes its script (PyTorch), its program (MPI), or its service command; the platform
adds the launcher, its flags and the addresses Pods find each other by. These are the names
and numbers both sides agree on.
"""

from __future__ import annotations

CLUSTER_DOMAIN = "cluster.local"
"""Cluster DNS domain of EKS (CoreDNS ``cluster.local``); Pod FQDNs end in ``.svc.<domain>``."""

TORCHRUN = "torchrun"
RENDEZVOUS_PORT = 29400
"""Fixed c10d rendezvous port on rank 0 (torchrun's documented default for ``--rdzv-endpoint``)."""
MAX_RESTARTS = 0
"""torchrun restarts of the local workers: none, a failed rank fails its Pod and so the run."""

TORCHRUN_OWNED_FLAGS = (
    "--nnodes",
    "--nproc-per-node",
    "--nproc_per_node",
    "--node-rank",
    "--node_rank",
    "--rdzv-backend",
    "--rdzv_backend",
    "--rdzv-endpoint",
    "--rdzv_endpoint",
    "--rdzv-id",
    "--rdzv_id",
    "--rdzv-conf",
    "--rdzv_conf",
    "--master-addr",
    "--master_addr",
    "--master-port",
    "--master_port",
    "--max-restarts",
    "--max_restarts",
    "--standalone",
)
"""torchrun flags the PyTorch template sets from the gang's shape (both spellings torchrun accepts)."""

MPI_LAUNCHERS = ("mpirun", "mpiexec", "orterun", "prterun")
MPI_OWNED_FLAGS = ("-np", "-n", "--np", "--hostfile", "-hostfile", "--machinefile", "-machinefile", "--host", "-H")
"""mpirun flags the MPI template sets: the process count and where the ranks run."""
MPI_CONFIG_DIR = "/etc/mpi"
HOSTFILE_KEY = "hostfile"
SSH_PORT = 22
SSH_DIR = "/etc/mpi/ssh"
SSH_PRIVATE_KEY = "ssh-privatekey"
"""Secret keys of a ``kubernetes.io/ssh-auth`` Secret (the private key) plus the public half."""
SSH_PUBLIC_KEY = "ssh-publickey"
SSH_HOST_KEY = "ssh-host-key"
"""The workers' sshd host key (private), in the same Secret: made with the run, so the launcher pins it."""
SSH_KNOWN_HOSTS = "ssh-known-hosts"
"""The launcher's ``known_hosts``: every worker's name with the public half of ``SSH_HOST_KEY``."""

DRIVER_PORT = 7078
"""Port the Spark-like driver listens on for executors (Spark's usual ``spark.driver.port`` choice)."""

SHM_PATH = "/dev/shm"
CHECKPOINT_PATH = "/checkpoints"

PLATFORM_MOUNTS = {SHM_PATH: "the memory-backed /dev/shm"}
"""Where the gang templates mount their own volumes in every run's containers (``charts/gangs.py``); a
team's checkpoint volume may not take one of these paths (Kubernetes refuses two mounts at one path) nor
a directory above one (it would hide it)."""
MPI_MOUNTS = {MPI_CONFIG_DIR: "the MPI hostfile", SSH_DIR: "the MPI SSH keys"}
"""What the MPI template mounts on top of ``PLATFORM_MOUNTS``."""
