/* report.h - mtracectl's list of the traces a program wrote (report.c). */
#ifndef MTRACECTL_REPORT_H
#define MTRACECTL_REPORT_H
/* The traces the manifest names, on stderr, and the next step */
void report_traces(const char *manifest);
#endif
