/* tool.h - what every command includes: messages and exit codes, outputs, the programs it
 * runs, progress, text fields and numbers.  Library modules include the one they use. */
#ifndef TOOL_H
#define TOOL_H
#include <stdio.h>
#include "input.h"
#include "msg.h"
#include "output.h"
#include "progress.h"
#include "proc.h"
#include "textout.h"
#include "units.h"
#endif
