/* Fuzz trace_recv's stream reader (tools/trace_recv/recv_conn.c): any bytes, in any pieces, are
 * taken or refused with a message naming the offset, and every file written lies in DIR/HOST/
 * with a plain name.  The same bytes packed by the codec of compressed frames unpack to
 * themselves. */
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz.h"
#include "recv_conn.h"
#include "stream_pack.h"

/* Check what is under dir (HOST directories holding regular files only), and remove it */
static void check_and_clear(int dirfd)
{
	DIR *d = fdopendir(dup(dirfd));
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		PROPERTY(rc_name_ok(e->d_name, strlen(e->d_name)), "host entry %s", e->d_name);
		int h = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		PROPERTY(h >= 0, "%s is no directory", e->d_name);
		DIR *hd = fdopendir(h);
		struct dirent *f;
		while (hd && (f = readdir(hd))) {
			if (!strcmp(f->d_name, ".") || !strcmp(f->d_name, ".."))
				continue;
			struct stat st;
			PROPERTY(fstatat(h, f->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				 S_ISREG(st.st_mode), "%s/%s is no regular file", e->d_name,
				 f->d_name);
			PROPERTY(rc_name_ok(f->d_name, strlen(f->d_name)), "file %s", f->d_name);
			unlinkat(h, f->d_name, 0);
		}
		if (hd)
			closedir(hd);
		unlinkat(dirfd, e->d_name, AT_REMOVEDIR);
	}
	if (d)
		closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int dirfd = -1;
	static struct rconn c;
	if (dirfd < 0) {
		char tmpl[] = "/tmp/fuzz_stream.XXXXXX";
		if (!mkdtemp(tmpl) || (dirfd = open(tmpl, O_RDONLY | O_DIRECTORY)) < 0)
			abort();
	}
	static unsigned char packed[MTS_PACK_BOUND(4096)], back[4096];
	size_t k = size < sizeof back ? size : sizeof back;
	size_t pk = mts_pack(data, k, packed, sizeof packed);
	PROPERTY(!pk || (pk < k && mts_unpack(packed, pk, back, k) == 0 && !memcmp(back, data, k)),
		 "%zu bytes packed to %zu do not unpack to themselves", k, pk);
	if (rc_init(&c, dirfd, "fuzz") < 0)
		return 0;
	/* pieces of 1 + the first byte's value: frames cut anywhere */
	size_t piece = size ? 1 + data[0] : 1;
	int r = 0;
	for (size_t o = 0; o < size && r == 0; o += piece) {
		r = rc_feed(&c, data + o, size - o < piece ? size - o : piece);
		if (r == 0)
			r = rc_sync(&c);
		c.nout = 0;
	}
	if (r == 0)
		r = rc_eof(&c);
	if (r < 0)
		PROPERTY(strstr(c.err, ": offset ") || strstr(c.err, "the sender says"),
			 "error without an offset: %s", c.err);
	rc_free(&c);
	check_and_clear(dirfd);
	return 0;
}
