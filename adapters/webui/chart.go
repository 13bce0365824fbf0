package webui

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"time"
)

// chartLine is one series of a chart.
type chartLine struct {
	Name   string
	Class  string // CSS class giving its colour
	Values []float64
}

// lineChart draws lines over the same time axis as an inline SVG: no script, no
// library, and nothing but numbers from the server inside it. span is the axis's
// length, ending now; values are spaced evenly across the last len/size of it.
func lineChart(title string, unit string, span time.Duration, size int, lines ...chartLine) template.HTML {
	const w, h, left, bottom, top = 600.0, 160.0, 48.0, 20.0, 8.0
	peak := 0.0
	for _, l := range lines {
		for _, v := range l.Values {
			peak = max(peak, v)
		}
	}
	scale := niceCeiling(peak)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-label="%s">`, w, h, template.HTMLEscapeString(title))
	fmt.Fprintf(&b, `<title>%s</title>`, template.HTMLEscapeString(title))
	for _, frac := range []float64{0, 0.5, 1} {
		y := top + (h-top-bottom)*(1-frac)
		fmt.Fprintf(&b, `<line class="grid" x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f"/>`, left, w, y, y)
		fmt.Fprintf(&b, `<text class="axis" x="%.0f" y="%.1f" text-anchor="end">%s</text>`, left-6, y+4, template.HTMLEscapeString(short(scale*frac)+unit))
	}
	fmt.Fprintf(&b, `<text class="axis" x="%.0f" y="%.0f">-%s</text>`, left, h-4, template.HTMLEscapeString(span.String()))
	fmt.Fprintf(&b, `<text class="axis" x="%.0f" y="%.0f" text-anchor="end">now</text>`, w, h-4)
	step := (w - left) / float64(max(size-1, 1))
	for _, l := range lines {
		if len(l.Values) == 0 {
			continue
		}
		var pts []string
		x0 := w - step*float64(len(l.Values)-1)
		for i, v := range l.Values {
			y := top + (h-top-bottom)*(1-v/scale)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x0+step*float64(i), y))
		}
		fmt.Fprintf(&b, `<polyline class="line %s" fill="none" points="%s"><title>%s</title></polyline>`,
			template.HTMLEscapeString(l.Class), strings.Join(pts, " "), template.HTMLEscapeString(l.Name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // built from numbers and escaped names only
}

// niceCeiling rounds v up to 1, 2 or 5 times a power of ten (1 when v is 0), so the
// axis reads well.
func niceCeiling(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := 1.0
	for p*10 <= v {
		p *= 10
	}
	for p > v {
		p /= 10
	}
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func short(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
