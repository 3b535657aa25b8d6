/* ctlhostile - a process that lies to mtracectl --status PID (tests/t_dormant_hostile.sh): it
 * writes its pid to PIDFILE once ready, then waits to be killed (two minutes at most).
 *   ctlhostile block nonul|escape|state PIDFILE: under the preload (MTRACE_CTL_START=0), its
 *     tracer's control block rewritten: a trace's name with no NUL in all its bytes; one with
 *     terminal escapes and a line of its own; an unknown state
 *   ctlhostile elf sections|symbols|beyond DIR PIDFILE: a crafted 4 MiB ELF file,
 *     DIR/libmtrace.so.0, mapped from its first byte: 4,096 section headers each claiming a
 *     million symbols (of 4 bytes); 1,000 dynamic symbol tables of 174,762 symbols each,
 *     within the file; one table claiming a million symbols, past the file's end */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mtrace-control.h"

#define FILE_SIZE (4u << 20)

static int block(const char *kind)
{
	struct mtrace_control *c = dlsym(RTLD_DEFAULT, MTRACE_CONTROL_SYMBOL);
	if (!c)
		return 2;
	if (!strcmp(kind, "nonul"))
		memset(c->file, 'A', sizeof c->file);
	else if (!strcmp(kind, "escape"))
		snprintf(c->file, sizeof c->file, "/tmp/x\033]0;owned\007\033[2J\nmtracectl: "
			 "process 1: dormant");
	else if (!strcmp(kind, "state"))
		c->state = 7;
	else
		return 2;
	return 0;
}

static int elf(const char *kind, const char *dir)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/libmtrace.so.0", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, FILE_SIZE) < 0)
		return 3;
	unsigned char *m = mmap(NULL, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return 3;
	Elf64_Ehdr *eh = (Elf64_Ehdr *)m;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = __BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_phoff = sizeof *eh;
	eh->e_phnum = 1;
	eh->e_phentsize = sizeof(Elf64_Phdr);
	Elf64_Phdr *ph = (Elf64_Phdr *)(m + eh->e_phoff);
	ph->p_type = PT_LOAD;
	ph->p_filesz = ph->p_memsz = FILE_SIZE;
	eh->e_shoff = 4096;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	Elf64_Shdr *sh = (Elf64_Shdr *)(m + eh->e_shoff);
	unsigned n = !strcmp(kind, "sections") ? 4096 : !strcmp(kind, "symbols") ? 1000 : 2;
	eh->e_shnum = (Elf64_Half)n;
	sh[0].sh_type = SHT_STRTAB;   /* every table's names: the whole file */
	sh[0].sh_size = FILE_SIZE;
	for (unsigned i = 1; i < n; i++) {
		sh[i].sh_type = SHT_DYNSYM;
		sh[i].sh_entsize = !strcmp(kind, "sections") ? 4 : sizeof(Elf64_Sym);
		sh[i].sh_size = !strcmp(kind, "beyond") ? 1000000 * sizeof(Elf64_Sym) :
				FILE_SIZE / sh[i].sh_entsize * sh[i].sh_entsize;
		sh[i].sh_link = 0;
	}
	/* every symbol defined (a value), its name "mtrace_contro" cut short of the one sought */
	for (size_t off = 4096 + n * sizeof(Elf64_Shdr); off + 16 <= FILE_SIZE; off += 16)
		memcpy(m + off, "mtrace_contro\0\0\1", 16);
	munmap(m, FILE_SIZE);
	void *map = mmap(NULL, FILE_SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	return map == MAP_FAILED ? 3 : 0;
}

int main(int argc, char **argv)
{
	int r = argc == 4 && !strcmp(argv[1], "block") ? block(argv[2]) :
		argc == 5 && !strcmp(argv[1], "elf") ? elf(argv[2], argv[3]) : 2;
	if (r)
		return r;
	const char *pidfile = argv[argc - 1];
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", pidfile);
	FILE *f = fopen(tmp, "w");   /* written whole, then renamed: never read half-written */
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0 || rename(tmp, pidfile))
		return 3;
	for (int i = 0; i < 120; i++)
		sleep(1);
	return 0;
}
