/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * For tests/cli/run-attacks-locks.sh (never installed): what a user gets
 * from fusermount3 on a desktop, and a thread of the user's parked in the
 * kernel while it holds a lock of a file or pipe (the third hostile review
 * of the root helper found the attack).
 *
 *   hangfs serve MNT UID GID   as root: mount a FUSE file system on MNT for
 *                              UID:GID (fusermount3's job), then serve it as
 *                              UID: one file "f", whose READs are never
 *                              answered. Runs until killed.
 *   hangfs serve MNT UID GID FLAG  the same, and once the file FLAG
 *                              exists, FLUSH is never answered either (a
 *                              close() of "f" then waits in the kernel,
 *                              unkillably: tenth review, attack 4).
 *   hangfs hold FILE SRC       as the user: write(FILE, mmap(SRC)): the
 *                              write takes FILE's i_rwsem (a pipe's mutex
 *                              if FILE is a pipe), then faults the source
 *                              page in from FUSE, and waits there.
 *   hangfs holddir DIR SRC     getdents64(DIR) into a private map of SRC:
 *                              DIR's i_rwsem held shared the same way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* With "serve ... FLAG": once FLAG exists, FLUSH is never answered. */
static const char *noflush;
static int fuse_fd;

static void reply(uint64_t unique, int error, const void *data, size_t len)
{
	char buf[4096];
	struct fuse_out_header *h = (void *)buf;

	h->unique = unique;
	h->error = error;
	h->len = sizeof(*h) + len;
	if (len)
		memcpy(buf + sizeof(*h), data, len);
	if (write(fuse_fd, buf, h->len) < 0)
		perror("reply");
}

static void fill_attr(struct fuse_attr *a, uint64_t ino, uid_t uid, gid_t gid)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->uid = uid;
	a->gid = gid;
	a->nlink = 1;
	if (ino == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
	} else {
		a->mode = S_IFREG | 0644;
		a->size = 1 << 20;
		a->blocks = 2048;
	}
	a->blksize = 4096;
}

static int serve(const char *mnt, uid_t uid, gid_t gid)
{
	static char buf[1 << 20 | 4096];
	char opts[256];

	fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse_fd < 0)
		return perror("/dev/fuse"), 1;
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=%u,group_id=%u", fuse_fd,
		 (unsigned)uid, (unsigned)gid);
	if (mount("hangfs", mnt, "fuse.hangfs", MS_NOSUID | MS_NODEV, opts) < 0)
		return perror("mount"), 1;
	/* From here on the user's process, as under fusermount3. */
	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
		return perror("drop"), 1;
	for (;;) {
		ssize_t n = read(fuse_fd, buf, sizeof(buf));
		struct fuse_in_header *in = (void *)buf;
		void *arg = buf + sizeof(*in);

		if (n < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			return 0; /* aborted, unmounted */
		}
		switch (in->opcode) {
		case FUSE_INIT: {
			struct fuse_init_in *i = arg;
			struct fuse_init_out o = { .major = FUSE_KERNEL_VERSION,
						   .minor = i->minor < FUSE_KERNEL_MINOR_VERSION ?
						   i->minor : FUSE_KERNEL_MINOR_VERSION,
						   .max_write = 4096, .max_readahead = 4096 };
			reply(in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out e = { 0 };

			if (strcmp(arg, "f") != 0) {
				reply(in->unique, -ENOENT, NULL, 0);
				break;
			}
			e.nodeid = 2;
			e.generation = 1;
			fill_attr(&e.attr, 2, uid, gid);
			reply(in->unique, 0, &e, sizeof(e));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out a = { 0 };

			fill_attr(&a.attr, in->nodeid, uid, gid);
			reply(in->unique, 0, &a, sizeof(a));
			break;
		}
		case FUSE_OPEN:
		case FUSE_OPENDIR: {
			struct fuse_open_out o = { .fh = 1 };

			reply(in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_READ:
			fprintf(stderr, "hangfs: READ from pid %u uid %u, not answered\n",
				in->pid, in->uid);
			break; /* never answered */
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;
		case FUSE_FLUSH:
			if (noflush && access(noflush, F_OK) == 0) {
				fprintf(stderr, "hangfs: FLUSH from pid %u, not answered\n", in->pid);
				break;
			}
			reply(in->unique, 0, NULL, 0);
			break;
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
			reply(in->unique, 0, NULL, 0);
			break;
		default:
			reply(in->unique, -ENOSYS, NULL, 0);
		}
	}
}

static int hold(const char *file, const char *src)
{
	int s = open(src, O_RDONLY), f = open(file, O_WRONLY | O_APPEND);
	char *map;

	if (s < 0 || f < 0)
		return perror("open"), 1;
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, s, 0);
	if (map == MAP_FAILED)
		return perror("mmap"), 1;
	fprintf(stderr, "hangfs: writing to %s from %s\n", file, src);
	if (write(f, map, 4096) < 0)
		perror("write");
	return 0;
}

/* getdents64(DIR) into a private writable map of SRC: the copy-out faults
 * on FUSE while iterate_dir() holds DIR's i_rwsem (shared): every create,
 * rename or unlink in DIR waits, uninterruptibly. */
static int holddir(const char *dir, const char *src)
{
	int s = open(src, O_RDONLY), d = open(dir, O_RDONLY | O_DIRECTORY);
	char *map;

	if (s < 0 || d < 0)
		return perror("open"), 1;
	map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, s, 0);
	if (map == MAP_FAILED)
		return perror("mmap"), 1;
	fprintf(stderr, "hangfs: reading %s into %s\n", dir, src);
	if (syscall(SYS_getdents64, d, map, 4096) < 0)
		perror("getdents64");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "holddir"))
		return holddir(argv[2], argv[3]);
	if (argc == 6 && !strcmp(argv[1], "serve")) {
		noflush = argv[5];
		return serve(argv[2], (uid_t)atoi(argv[3]), (gid_t)atoi(argv[4]));
	}
	if (argc == 5 && !strcmp(argv[1], "serve"))
		return serve(argv[2], (uid_t)atoi(argv[3]), (gid_t)atoi(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "hold"))
		return hold(argv[2], argv[3]);
	fprintf(stderr, "usage: hangfs serve MNT UID GID | hangfs hold FILE SRC\n");
	return 2;
}
