# svgcheck.py SVG... - read a trace_plot chart back from its SVG and print a line for each thing
# that would not read well (nothing when the chart reads well; exit 1 if anything was printed):
#  - two texts whose boxes overlap, or a text that leaves the canvas;
#  - a value label that crosses its panel's frame, a legend that overlaps a plot area;
#  - an axis without a unit: its title ends in "(unit)", or every tick carries one;
#  - numeric ticks on a bucket (category) axis, or a category name that is a bare number.
# Boxes are estimated conservatively, as no font is at hand: each character 0.65 em wide (the
# widest digits of DejaVu Sans, what browsers on Debian draw sans-serif with, are 0.636 em),
# 0.85 em above the baseline and 0.25 em below; a rotated text's box is rotated with it.
import math, re, sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'
UNIT = re.compile(r'(\d\s*(B|KiB|MiB|GiB|TiB|s|ms|us|µs|ns|[kMGT]?/s)|%)$')
BARE_NUMBER = re.compile(r'^[≥<>~]?\s*-?[0-9][0-9.,]*\s*[kMGT]?$')


def num(v, default=0.0):
    return float(v) if v is not None else default


def transform(t):
    """the 2x3 matrix of a transform attribute: translate(a,b), rotate(r), rotate(r cx cy)"""
    m = (1, 0, 0, 1, 0, 0)
    for kind, args in re.findall(r'(\w+)\(([^)]*)\)', t or ''):
        a = [float(x) for x in re.split(r'[\s,]+', args.strip()) if x]
        if kind == 'translate':
            n = (1, 0, 0, 1, a[0], a[1] if len(a) > 1 else 0)
        elif kind == 'rotate':
            r = math.radians(a[0])
            c, s = math.cos(r), math.sin(r)
            cx, cy = (a[1], a[2]) if len(a) == 3 else (0, 0)
            n = (c, s, -s, c, cx - c * cx + s * cy, cy - s * cx - c * cy)
        else:
            raise ValueError('transform %s not understood' % kind)
        # m then n: m * n (the later one applies first to the point)
        m = (m[0] * n[0] + m[2] * n[1], m[1] * n[0] + m[3] * n[1],
             m[0] * n[2] + m[2] * n[3], m[1] * n[2] + m[3] * n[3],
             m[0] * n[4] + m[2] * n[5] + m[4], m[1] * n[4] + m[3] * n[5] + m[5])
    return m


def apply(m, p):
    return (m[0] * p[0] + m[2] * p[1] + m[4], m[1] * p[0] + m[3] * p[1] + m[5])


def text_box(el, fs_default):
    fs = num(el.get('font-size'), fs_default)
    x, y = num(el.get('x')), num(el.get('y'))
    w = len(el.text or '') * 0.65 * fs
    anchor = el.get('text-anchor', 'start')
    x0 = x - w if anchor == 'end' else x - w / 2 if anchor == 'middle' else x
    corners = [(x0, y - 0.85 * fs), (x0 + w, y - 0.85 * fs), (x0 + w, y + 0.25 * fs), (x0, y + 0.25 * fs)]
    m = transform(el.get('transform'))
    return [apply(m, p) for p in corners]


def rect_poly(x0, y0, x1, y1):
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def overlap(a, b, slack=0.5):
    """two convex polygons overlap by more than slack pixels (separating axis test)"""
    for poly in (a, b):
        for i in range(len(poly)):
            (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % len(poly)]
            nx, ny = y1 - y2, x2 - x1
            ln = math.hypot(nx, ny) or 1
            pa = [(p[0] * nx + p[1] * ny) / ln for p in a]
            pb = [(p[0] * nx + p[1] * ny) / ln for p in b]
            if min(max(pa), max(pb)) - max(min(pa), min(pb)) <= slack:
                return False
    return True


def inside(poly, x0, y0, x1, y1, slack=0.5):
    return all(x0 - slack <= x <= x1 + slack and y0 - slack <= y <= y1 + slack for x, y in poly)


def check(path):
    problems = []
    root = ET.parse(path).getroot()
    W, H = num(root.get('width')), num(root.get('height'))
    fs = num(root.get('font-size'), 16)
    texts = []      # (class, text, box, panel index or None)
    frames = []     # plot areas
    legends = []    # legend backgrounds
    panels = []     # per panel: {class: [texts]}

    def walk(el, panel):
        for child in el:
            tag = child.tag.replace(NS, '')
            if tag == 'g' and child.get('class') == 'panel':
                panels.append({})
                walk(child, len(panels) - 1)
            elif tag == 'g':
                walk(child, panel)
            elif tag == 'text':
                cls = child.get('class', '?')
                texts.append((cls, child.text or '', text_box(child, fs), panel))
                if panel is not None:
                    panels[panel].setdefault(cls, []).append(child.text or '')
            elif tag == 'rect' and child.get('class') == 'frame':
                x, y = num(child.get('x')), num(child.get('y'))
                frames.append((x, y, x + num(child.get('width')), y + num(child.get('height')), panel))
            elif tag == 'rect' and el.get('class') == 'legend' and child.get('height') != '3':
                x, y = num(child.get('x')), num(child.get('y'))
                legends.append(rect_poly(x, y, x + num(child.get('width')), y + num(child.get('height'))))
    walk(root, None)
    for i, (ca, ta, ba, _) in enumerate(texts):
        if not inside(ba, 0, 0, W, H):
            problems.append('%s "%s" leaves the canvas' % (ca, ta))
        for cb, tb, bb, _ in texts[i + 1:]:
            if overlap(ba, bb):
                problems.append('%s "%s" overlaps %s "%s"' % (ca, ta, cb, tb))
    for cls, t, box, panel in texts:
        if cls == 'value':
            f = [fr for fr in frames if fr[4] == panel][0]
            if not inside(box, *f[:4]):
                problems.append('value "%s" crosses its panel\'s frame' % t)
        if cls == 'legend':
            for fr in frames:
                if overlap(box, rect_poly(*fr[:4]), 0):
                    problems.append('legend "%s" lies on a plot area' % t)
    for lg in legends:
        for fr in frames:
            if overlap(lg, rect_poly(*fr[:4]), 0):
                problems.append('the legend lies on a plot area')
    for i, p in enumerate(panels):
        name = 'panel %d' % (i + 1)
        titles = p.get('ytitle', [])
        if len(titles) != 1:
            problems.append('%s: %d y titles' % (name, len(titles)))
        elif not re.search(r'\(.+\)$', titles[0]) and not (p.get('ytick') and all(UNIT.search(t) for t in p['ytick'])):
            problems.append('%s: the y axis "%s" has no unit (ticks %s)' % (name, titles[0], p.get('ytick')))
        if p.get('xtick'):
            xt = p.get('xtitle', [''])[0]
            if not re.search(r'\(.+\)$', xt) and not all(UNIT.search(t) for t in p['xtick']):
                problems.append('%s: the x axis "%s" has no unit (ticks %s)' % (name, xt, p['xtick']))
            if p.get('xcat'):
                problems.append('%s: numeric ticks on a bucket axis (%s)' % (name, ' '.join(p['xtick'])))
        for t in p.get('xcat', []):
            if BARE_NUMBER.match(t):
                problems.append('%s: the bucket "%s" has no unit' % (name, t))
    if not panels:
        problems.append('no panel (<g class="panel">)')
    return problems


bad = 0
for path in sys.argv[1:]:
    for line in check(path):
        print('%s: %s' % (path, line))
        bad = 1
sys.exit(bad)
