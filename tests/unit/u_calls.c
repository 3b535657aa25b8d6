/* u_calls - unit test of the call table (MTRACE_CALLS in mtrace-trace.h), from which the tools'
 * per-call tables are generated: every line complete and consistent with the others.  An
 * allocator call has a name, a value in 1..LAST_API, a workload opcode of its own whose operand
 * count its operands give, order points that fit its operands, a latency class and a dj opcode;
 * a mapping call a value in LAST_API+1..LAST_MAP and no class or dj opcode; a bookkeeping
 * record none of those.  Names and values are unique, and every value and opcode in the
 * ranges has its line. */
#include "unit.h"
#include "dj_wl.h"
#include "lat_hist.h"
#include "mtrace-workload.h"

enum kind { API, MAP, KEPT };

struct row {
	enum kind kind;
	unsigned value, wl, order, opd, lat, dj;
	const char *name, *call;
};

#define ROW_(k, c, v, name, wl, order, opd, lat, dj) \
	{ k, v, MTRACE_WL_##wl, MTRACE_ORDER_##order, opd, LAT_##lat, DJ_##dj, name, #c },
#define API_(...) ROW_(API, __VA_ARGS__)
#define MAP_(...) ROW_(MAP, __VA_ARGS__)
#define KEPT_(...) ROW_(KEPT, __VA_ARGS__)
static const struct row rows[] = {
	MTRACE_CALLS_API(API_) MTRACE_CALLS_MAP(MAP_) MTRACE_CALLS_KEPT(KEPT_)
};
#define NROWS (sizeof rows / sizeof *rows)

/* the line's operands fit its order points: a result made after the call, a block released
   before it, both for a resize */
static int order_fits(const struct row *r)
{
	int res = !!(r->opd & MTRACE_OPD_RESULT), ptr = !!(r->opd & MTRACE_OPD_PTR);
	if (r->order == MTRACE_ORDER_BOTH)
		return res && ptr;
	if (r->order == MTRACE_ORDER_BEFORE)
		return ptr && !res;
	return r->order == MTRACE_ORDER_AFTER && res;
}

static void check_api(const struct row *r)
{
	unsigned o = r->opd;
	CHECK(r->value >= 1 && r->value <= MTRACE_CALL_LAST_API, "%s: an allocator call's value "
	      "(%u) in 1..%u", r->call, r->value, MTRACE_CALL_LAST_API);
	CHECK(r->wl >= 1 && r->wl <= MTRACE_WL_LAST_CALL, "%s: a workload opcode (%u) in 1..%u",
	      r->call, r->wl, MTRACE_WL_LAST_CALL);
	CHECK(r->wl == MTRACE_WL_NONE || (mtrace_wl_op_name(r->wl) &&
					  !strcmp(mtrace_wl_op_name(r->wl), r->name)),
	      "%s: its opcode's name is its own", r->call);
	CHECK(r->wl == MTRACE_WL_NONE || (mtrace_wl_call_operands(r->wl) == o &&
					  mtrace_wl_has(r->wl, o)),
	      "%s: its opcode's operands are its own", r->call);
	CHECK(r->wl == MTRACE_WL_NONE ||
	      (mtrace_wl_operands(r->wl) == MTRACE_WL_OPERANDS_OF(o) &&
	       MTRACE_WL_OPERANDS_OF(o) <= 4), "%s: its opcode's operand count (%d) is its "
	      "operands' (%d, 4 at most)", r->call, r->wl == MTRACE_WL_NONE ? -1 :
	      mtrace_wl_operands(r->wl), (int)MTRACE_WL_OPERANDS_OF(o));
	CHECK(order_fits(r), "%s: its order points fit its operands", r->call);
	CHECK(!(o & MTRACE_OPD_MAPPING) && (!(o & (MTRACE_OPD_COUNT | MTRACE_OPD_ALIGN)) ||
					   (o & MTRACE_OPD_SIZE)) &&
	      !((o & MTRACE_OPD_COUNT) && (o & MTRACE_OPD_ALIGN)),
	      "%s: its operands make sense (a size for a count or an alignment, not both)",
	      r->call);
	CHECK(r->lat < LAT_CLASSES, "%s: a latency class", r->call);
	CHECK((r->dj >= DJ_MALLOC && r->dj <= DJ_FREE) || (r->dj >= DJ_MEMALIGN &&
							      r->dj <= DJ_PVALLOC),
	      "%s: a dj opcode that is a call (%u)", r->call, r->dj);
}

static void check_other(const struct row *r)
{
	if (r->kind == MAP) {
		CHECK(r->value > MTRACE_CALL_LAST_API && r->value <= MTRACE_CALL_LAST_MAP,
		      "%s: a mapping call's value (%u) in %u..%u", r->call, r->value,
		      MTRACE_CALL_LAST_API + 1, MTRACE_CALL_LAST_MAP);
		CHECK((r->opd & MTRACE_OPD_MAPPING) && order_fits(r),
		      "%s: a mapping call, its order points fitting its operands", r->call);
		CHECK(r->wl == MTRACE_WL_NONE ||
		      (r->wl > MTRACE_WL_LAST_CALL && r->wl <= MTRACE_WL_LAST_MAP),
		      "%s: a mapping opcode or none", r->call);
	} else {
		CHECK(r->value > MTRACE_CALL_LAST_MAP && r->value <= 255,
		      "%s: a bookkeeping record's value (%u) above the calls", r->call, r->value);
		CHECK(r->order == MTRACE_ORDER_KEPT && r->opd == 0 && r->wl == MTRACE_WL_NONE,
		      "%s: no order points, operands or opcode", r->call);
	}
	CHECK(r->lat == LAT_NONE && r->dj == DJ_NONE, "%s: no latency class, no dj opcode",
	      r->call);
}

int main(void)
{
	unsigned api = 0, map = 0, calls_seen = 0, ops_seen = 0;
	for (size_t i = 0; i < NROWS; i++) {
		const struct row *r = &rows[i];
		CHECK(r->name && r->name[0] && !strchr(r->name, '%'),
		      "%s: a name (no %%: trace_dump prints it as a format)", r->call);
		CHECK(mtrace_call_name(r->value) && !strcmp(mtrace_call_name(r->value), r->name),
		      "%s: mtrace_call_name(%u) is its name", r->call, r->value);
		CHECK(mtrace_call_operands(r->value) == r->opd &&
		      mtrace_call_order(r->value) == r->order,
		      "%s: its operands and order points by value", r->call);
		CHECK(r->value < 64 && (!r->opd || mtrace_call_has(r->value, r->opd)) &&
		      mtrace_call_order_is(r->value, r->order),
		      "%s: a value below 64, in the masks of its operands and order points",
		      r->call);
		int unique = 1;
		for (size_t j = 0; j < i; j++)
			unique &= rows[j].value != r->value && strcmp(rows[j].name, r->name) &&
				  (r->wl == MTRACE_WL_NONE || rows[j].wl != r->wl);
		CHECK(unique, "%s: its value, name and opcode are no other line's", r->call);
		if (r->kind == API) {
			api++;
			check_api(r);
			if (r->value <= MTRACE_CALL_LAST_API)
				calls_seen |= 1u << r->value;
			if (r->wl <= MTRACE_WL_LAST_CALL)
				ops_seen |= 1u << r->wl;
			CHECK(lat_class_of_call(r->value) == r->lat,
			      "%s: lat_class_of_call gives its class", r->call);
		} else {
			map += r->kind == MAP;
			check_other(r);
		}
	}
	CHECK(api == MTRACE_CALL_LAST_API && calls_seen == (2u << MTRACE_CALL_LAST_API) - 2,
	      "every allocator call 1..%u has its line (%u lines)", MTRACE_CALL_LAST_API, api);
	CHECK(ops_seen == (2u << MTRACE_WL_LAST_CALL) - 2,
	      "every allocator call's opcode 1..%u has its line", MTRACE_WL_LAST_CALL);
	CHECK(map == MTRACE_CALL_LAST_MAP - MTRACE_CALL_LAST_API,
	      "every mapping call has its line (%u)", map);
	CHECK(mtrace_call_name(MTRACE_CALL_UNWRITTEN) &&
	      !mtrace_call_name(MTRACE_CALL_LAST_MAP + 1),
	      "mtrace_call_name: 0 is unwritten, a value of no line is none");
	return unit_done();
}
