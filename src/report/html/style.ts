/** The report page's style sheet (inlined, allowed by its hash in the CSP; no web fonts). */
export const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1200px;padding:1rem 1.5rem;color:#222;line-height:1.4}
h1{font-size:1.5rem;margin:.2rem 0}h2{font-size:1.2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}h3{font-size:1rem}h4{font-size:.9rem;margin:.6rem 0 .2rem}
nav a{margin-right:.8rem}
table{border-collapse:collapse;font-size:.85rem;margin:.5rem 0}th,td{padding:.25rem .5rem;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}
th[scope=row],thead th:first-child{text-align:left}th[scope=row]{white-space:normal;overflow-wrap:anywhere;min-width:8rem}thead th{border-bottom:2px solid #999}
thead th button{font:inherit;font-weight:600;background:none;border:0;cursor:pointer;padding:0}
th[aria-sort=ascending] button::after{content:" ▲"}th[aria-sort=descending] button::after{content:" ▼"}
td.best{background:#eef6ee}sup{color:#a33}
.notes p,.muted{color:#666;font-size:.85rem;margin:.2rem 0}
div.scroll{overflow-x:auto;max-width:100%}
#comparison-table th:first-child{position:sticky;left:0;z-index:1;background:#fff;box-shadow:inset -1px 0 0 #ccc;white-space:normal;overflow-wrap:anywhere;width:14rem;min-width:14rem;max-width:22rem}
#comparison-table th:nth-child(3),#comparison-table td:nth-child(3){border-right:1px solid #ccc}
figure.chart{margin:.5rem 0;overflow-x:auto;max-width:100%}
figure.chart>svg{max-width:100%;height:auto;display:block}
ul.legend{list-style:none;margin:.3rem 0 0;padding:0;display:flex;flex-wrap:wrap;gap:.2rem 1rem;font-size:.8rem;max-width:100%}
ul.legend li{display:flex;align-items:center;gap:.3rem;min-width:0;overflow-wrap:anywhere}
ul.legend svg.swatch{flex:none}
.helped{color:#17702b}.hurt{color:#a33}
.controls{display:flex;gap:1rem;align-items:center;flex-wrap:wrap;margin:.5rem 0}
.controls label{display:flex;gap:.3rem;align-items:center;min-width:0;max-width:100%}
#q-filter{min-width:0;max-width:40rem;flex:1 1 auto}
#q-search{width:22rem;max-width:100%}
details.query{border:1px solid #ddd;border-radius:4px;margin:.4rem 0;padding:.3rem .6rem}
details.query summary{cursor:pointer}
.qid{font-family:ui-monospace,monospace;font-weight:600;margin-right:.5rem}
.badge{display:inline-block;background:#eef;border-radius:3px;padding:0 .3rem;margin-right:.3rem;font-size:.8rem}
.badge.failed{background:#fdd}
.qtext-short{color:#555;font-size:.85rem}
.qtext{white-space:pre-wrap;background:#fafafa;padding:.4rem;border-left:3px solid #ccc}
.sid{font-family:ui-monospace,monospace;color:#888;font-size:.75rem}
.rawurl{color:#888;font-size:.8rem;word-break:break-all}
.runs{display:flex;gap:1rem;flex-wrap:wrap}.run{flex:1 1 300px}
ol.ranked{font-size:.85rem;padding-left:1.6rem;margin:.2rem 0}
ol.ranked li.hit{font-weight:600;color:#17702b}
.goldmark{color:#b8860b}
.imp{border-radius:2px;padding:0 .1rem}.imp-0{background:none}.imp-1{background:#fff4cc}.imp-2{background:#ffe699}.imp-3{background:#ffd34d}.imp-4{background:#ffbf00}.imp-5{background:#ff9900}
.explain-gold{margin:.4rem 0}
`;
