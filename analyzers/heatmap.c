// SPDX-License-Identifier: MIT
/*
 * Latency heat maps: counts per (time column, power-of-two row), rendered
 * as an SVG. Column width doubles when the trace outgrows
 * PP_HEATMAP_MAX_COLS, so memory is bounded by the cap, not the trace.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph.h"	/* pp_xml_put() */
#include "heatmap.h"

#define HM_AUTO_SLOT	1000000ull	/* 1 ms to start with */
#define HM_ROW_H	14
#define HM_LEFT		96
#define HM_RIGHT	130
#define HM_TOP		56
#define HM_BOTTOM	64
#define HM_PLOT_W	1000.0
#define HM_MAX_CELL_W	24.0

struct pp_heatmap {
	uint64_t slot_ns;
	uint64_t start;
	int started;
	uint64_t (*cols)[PP_HEATMAP_ROWS];
	size_t nr_cols, cap_cols;
	uint64_t count;
};

struct pp_heatmap *pp_heatmap__new(uint64_t slot_ns)
{
	struct pp_heatmap *hm = calloc(1, sizeof(*hm));

	if (!hm)
		return NULL;
	hm->slot_ns = slot_ns ? slot_ns : HM_AUTO_SLOT;
	return hm;
}

void pp_heatmap__free(struct pp_heatmap *hm)
{
	if (!hm)
		return;
	free(hm->cols);
	free(hm);
}

void pp_heatmap__set_start(struct pp_heatmap *hm, uint64_t start_ns)
{
	if (hm->count)
		return;
	hm->start = start_ns;
	hm->started = 1;
}

uint64_t pp_heatmap__count(const struct pp_heatmap *hm)
{
	return hm->count;
}

/* Double the column width, merging column pairs. */
static void coarsen(struct pp_heatmap *hm)
{
	size_t i, n = (hm->nr_cols + 1) / 2;
	unsigned int r;

	for (i = 0; i < n; i++) {
		for (r = 0; r < PP_HEATMAP_ROWS; r++) {
			uint64_t v = hm->cols[2 * i][r];

			if (2 * i + 1 < hm->nr_cols)
				v += hm->cols[2 * i + 1][r];
			hm->cols[i][r] = v;
		}
	}
	memset(hm->cols + n, 0, (hm->nr_cols - n) * sizeof(*hm->cols));
	hm->nr_cols = n;
	hm->slot_ns *= 2;
}

int pp_heatmap__add(struct pp_heatmap *hm, uint64_t time_ns, uint64_t value)
{
	uint64_t col;
	unsigned int row;

	if (!hm->started) {
		hm->start = time_ns;
		hm->started = 1;
	}
	for (;;) {
		col = time_ns > hm->start ? (time_ns - hm->start) / hm->slot_ns : 0;
		if (col < PP_HEATMAP_MAX_COLS)
			break;
		if (hm->slot_ns > UINT64_MAX / 2)
			return -ERANGE;		/* cannot happen with 64-bit times */
		coarsen(hm);
	}
	if (col >= hm->cap_cols) {
		size_t ncap = hm->cap_cols ? hm->cap_cols * 2 : 64;
		void *p;

		while (ncap <= col)
			ncap *= 2;
		if (ncap > PP_HEATMAP_MAX_COLS)
			ncap = PP_HEATMAP_MAX_COLS;
		p = realloc(hm->cols, ncap * sizeof(*hm->cols));
		if (!p)
			return -ENOMEM;
		hm->cols = p;
		memset(hm->cols + hm->cap_cols, 0, (ncap - hm->cap_cols) * sizeof(*hm->cols));
		hm->cap_cols = ncap;
	}
	if (col >= hm->nr_cols)
		hm->nr_cols = col + 1;
	row = value ? 64 - (unsigned int)__builtin_clzll(value) : 0;
	hm->cols[col][row]++;
	hm->count++;
	return 0;
}

/* Colour of a cell with @count events, log scale up to @max. */
static void cell_colour(uint64_t count, uint64_t max, char *buf, size_t len)
{
	/* pale yellow -> orange -> dark red */
	static const double stops[3][3] = {
		{ 255, 240, 170 }, { 250, 140, 40 }, { 120, 0, 30 },
	};
	double t = max > 1 ? log((double)count) / log((double)max) : 1.0, u;
	const double *a, *b;

	if (t < 0.5) {
		a = stops[0];
		b = stops[1];
		u = t * 2;
	} else {
		a = stops[1];
		b = stops[2];
		u = (t - 0.5) * 2;
	}
	snprintf(buf, len, "rgb(%d,%d,%d)", (int)(a[0] + (b[0] - a[0]) * u + 0.5),
		 (int)(a[1] + (b[1] - a[1]) * u + 0.5), (int)(a[2] + (b[2] - a[2]) * u + 0.5));
}

/* Lower bound of row @r. */
static uint64_t row_lo(unsigned int r)
{
	return r ? (uint64_t)1 << (r - 1) : 0;
}

static void row_label(char *buf, size_t len, unsigned int r, enum pp_unit unit)
{
	char a[32], b[32];

	if (!r)
		snprintf(buf, len, "[0]");
	else if (r == 64)
		snprintf(buf, len, "[%s, ...)", pp_value_format(a, sizeof(a), row_lo(r), unit));
	else
		snprintf(buf, len, "[%s, %s)", pp_value_format(a, sizeof(a), row_lo(r), unit),
			 pp_value_format(b, sizeof(b), row_lo(r + 1), unit));
}

static const char hm_script[] =
"function hm_init(evt) {\n"
"	var d = document.getElementById('details');\n"
"	var cells = document.querySelectorAll('rect.c');\n"
"	for (var i = 0; i < cells.length; i++) {\n"
"		cells[i].addEventListener('mouseover', function (e) { d.textContent = this.querySelector('title').textContent; });\n"
"		cells[i].addEventListener('mouseout', function (e) { d.textContent = ' '; });\n"
"	}\n"
"}\n";

int pp_heatmap__write_svg(const struct pp_heatmap *hm, FILE *fp,
			  const struct pp_heatmap_opts *user_opts)
{
	struct pp_heatmap_opts o = { 0 };
	unsigned int r, rmin = PP_HEATMAP_ROWS, rmax = 0, nrows, width, height, i;
	size_t c;
	uint64_t max = 0;
	double cw, plot_w, x, y;
	char colour[32], label[80], t0[32], t1[32];

	if (user_opts)
		o = *user_opts;
	if (!o.title)
		o.title = "Latency heat map";
	for (c = 0; c < hm->nr_cols; c++) {
		for (r = 0; r < PP_HEATMAP_ROWS; r++) {
			if (!hm->cols[c][r])
				continue;
			if (r < rmin)
				rmin = r;
			if (r > rmax)
				rmax = r;
			if (hm->cols[c][r] > max)
				max = hm->cols[c][r];
		}
	}
	if (!max) {
		rmin = rmax = 0;
	}
	nrows = rmax - rmin + 1;
	cw = hm->nr_cols ? HM_PLOT_W / (double)hm->nr_cols : HM_PLOT_W;
	if (cw > HM_MAX_CELL_W)
		cw = HM_MAX_CELL_W;
	plot_w = hm->nr_cols ? cw * (double)hm->nr_cols : HM_PLOT_W;
	width = HM_LEFT + (unsigned int)ceil(plot_w) + HM_RIGHT;
	height = HM_TOP + nrows * HM_ROW_H + HM_BOTTOM;
	if (height < HM_TOP + 160 + HM_BOTTOM)
		height = HM_TOP + 160 + HM_BOTTOM;	/* room for the legend */

	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\" onload=\"hm_init(evt)\">\n", width, height, width, height);
	fputs("<!-- Heat map rendered by pp: x = time, y = value (power-of-two rows), colour = events. -->\n"
	      "<style type=\"text/css\">\n"
	      "text { font-family: Verdana, sans-serif; font-size: 11px; fill: #000; }\n"
	      "#title { font-size: 17px; text-anchor: middle; }\n"
	      "#subtitle { font-size: 12px; text-anchor: middle; fill: #555; }\n"
	      "rect.c:hover { stroke: #000; stroke-width: 1; }\n"
	      "</style>\n", fp);
	fprintf(fp, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n", hm_script);
	fputs("<defs><linearGradient id=\"legend\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">", fp);
	for (i = 0; i <= 4; i++) {
		/* sample the same scale as the cells at 5 points */
		uint64_t fake_max = 10000;
		uint64_t cnt = (uint64_t)(pow((double)fake_max, i / 4.0) + 0.5);

		cell_colour(cnt ? cnt : 1, fake_max, colour, sizeof(colour));
		fprintf(fp, "<stop offset=\"%u%%\" stop-color=\"%s\"/>", i * 25, colour);
	}
	fputs("</linearGradient></defs>\n", fp);
	fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#fdfdfb\"/>\n", width, height);
	fprintf(fp, "<text id=\"title\" x=\"%.1f\" y=\"22\">", width / 2.0);
	pp_xml_put(fp, o.title);
	fputs("</text>\n", fp);
	if (o.subtitle) {
		fprintf(fp, "<text id=\"subtitle\" x=\"%.1f\" y=\"40\">", width / 2.0);
		pp_xml_put(fp, o.subtitle);
		fputs("</text>\n", fp);
	}
	/* plot frame */
	fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"%u\" fill=\"#f2f2f2\" "
		"stroke=\"#999\" stroke-width=\"0.5\"/>\n", HM_LEFT, HM_TOP, plot_w, nrows * HM_ROW_H);
	if (!max)
		fprintf(fp, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">no events</text>\n",
			HM_LEFT + plot_w / 2, HM_TOP + 11);

	/* cells: row rmax at the top */
	fputs("<g id=\"cells\">\n", fp);
	for (c = 0; c < hm->nr_cols && max; c++) {
		x = HM_LEFT + (double)c * cw;
		pp_ns_format(t0, sizeof(t0), (uint64_t)c * hm->slot_ns);
		pp_ns_format(t1, sizeof(t1), (uint64_t)(c + 1) * hm->slot_ns);
		for (r = rmin; r <= rmax; r++) {
			uint64_t n = hm->cols[c][r];

			if (!n)
				continue;
			y = HM_TOP + (double)(rmax - r) * HM_ROW_H;
			cell_colour(n, max, colour, sizeof(colour));
			row_label(label, sizeof(label), r, o.unit);
			fprintf(fp, "<rect class=\"c\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
				"fill=\"%s\"><title>time %s - %s, %s: %llu</title></rect>\n",
				x, y, cw, HM_ROW_H, colour, t0, t1, label, (unsigned long long)n);
		}
	}
	fputs("</g>\n", fp);

	/* y axis: the lower bound of every row at its bottom edge */
	for (r = rmin; r <= rmax && max; r++) {
		y = HM_TOP + (double)(rmax - r + 1) * HM_ROW_H;
		fprintf(fp, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", HM_LEFT - 6,
			y - 2, pp_value_format(t0, sizeof(t0), row_lo(r), o.unit));
	}
	fprintf(fp, "<text x=\"14\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 14 %.1f)\">"
		"%s (log2)</text>\n", HM_TOP + nrows * HM_ROW_H / 2.0, HM_TOP + nrows * HM_ROW_H / 2.0,
		o.unit == PP_UNIT_NS ? "latency" : "value");

	/* x axis: a tick every 1, 2 or 5 x 10^k ns, at least 100 px apart */
	y = HM_TOP + (double)nrows * HM_ROW_H;
	if (hm->nr_cols) {
		double target = 100.0 * (double)hm->slot_ns / cw, nice = 1, t;
		uint64_t end = (uint64_t)hm->nr_cols * hm->slot_ns;

		while (nice < target) {
			if (nice * 2 >= target)
				nice *= 2;
			else if (nice * 5 >= target)
				nice *= 5;
			else
				nice *= 10;
		}
		for (t = 0; t <= (double)end; t += nice) {
			x = HM_LEFT + t / (double)hm->slot_ns * cw;
			fprintf(fp, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#666\"/>"
				"<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
				x, y, x, y + 5, x, y + 17,
				t ? pp_ns_format(t0, sizeof(t0), (uint64_t)t) : "0");
		}
	}
	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">time since start "
		"(columns of %s)</text>\n", HM_LEFT + plot_w / 2, y + 34,
		pp_ns_format(t0, sizeof(t0), hm->slot_ns));
	fprintf(fp, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n", HM_LEFT, height - 8);

	/* legend */
	x = HM_LEFT + plot_w + 30;
	fprintf(fp, "<text x=\"%.1f\" y=\"%d\">events</text>\n", x, HM_TOP - 6);
	fprintf(fp, "<rect x=\"%.1f\" y=\"%d\" width=\"16\" height=\"140\" fill=\"url(#legend)\" "
		"stroke=\"#999\" stroke-width=\"0.5\"/>\n", x, HM_TOP);
	fprintf(fp, "<text x=\"%.1f\" y=\"%d\">%llu</text>\n", x + 22, HM_TOP + 10,
		(unsigned long long)(max ? max : 0));
	fprintf(fp, "<text x=\"%.1f\" y=\"%d\">1</text>\n", x + 22, HM_TOP + 140);
	fprintf(fp, "<text x=\"%.1f\" y=\"%d\">(log scale)</text>\n", x, HM_TOP + 156);
	fprintf(fp, "<text x=\"%.1f\" y=\"%d\">total %llu</text>\n", x, HM_TOP + 172,
		(unsigned long long)hm->count);
	fputs("</svg>\n", fp);
	return ferror(fp) ? -EIO : 0;
}

int pp_heatmap__write_file(const struct pp_heatmap *hm, const char *path,
			   const struct pp_heatmap_opts *opts)
{
	size_t len = strlen(path);
	int has_ext = len >= 4 && !strcmp(path + len - 4, ".svg");
	char *name = malloc(len + 5);
	FILE *fp;
	int err;

	if (!name)
		return -ENOMEM;
	snprintf(name, len + 5, "%s%s", path, has_ext ? "" : ".svg");
	fp = fopen(name, "w");
	if (!fp) {
		err = -errno;
		fprintf(stderr, "pp-analyze: cannot create %s: %s\n", name, strerror(errno));
		free(name);
		return err;
	}
	err = pp_heatmap__write_svg(hm, fp, opts);
	if (fclose(fp) && !err)
		err = -errno;
	if (err)
		fprintf(stderr, "pp-analyze: cannot write %s: %s\n", name, strerror(-err));
	free(name);
	return err;
}
