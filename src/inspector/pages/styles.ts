/**
 * The inspector's styles, after the shared stylesheet (src/pages/styles.ts). Below 48rem a table marked
 * `stack` turns each row into a card, every cell under its column's name, so no column is out of reach on a
 * phone; wider, tables scroll inside their own box and never widen the page.
 */
export const INSPECTOR_STYLES = `
.topbar{display:flex;flex-wrap:wrap;gap:.25rem .5rem;align-items:center;margin:0 0 1rem;padding:.35rem .5rem;background:#fff;border:1px solid #d0d4db;border-radius:12px}
.topbar a{padding:.35rem .55rem;border-radius:6px;text-decoration:none;font-weight:600;min-height:44px;display:inline-flex;align-items:center}
.topbar a[aria-current=page]{background:#eff4ff;color:#16181d;box-shadow:inset 0 -3px 0 #1d4ed8}
.topbar .live{margin-left:auto;font-size:.875rem;color:#4b5260;padding:0 .35rem}
.live::before{content:"\\25CF";margin-right:.3rem;color:#15803d}
.live.off::before{color:#b91c1c}
main.wide{max-width:84rem}
.filters label{flex:1 1 10rem;min-width:0}
.filters select,.filters input{width:100%;min-width:0;max-width:100%}
.filters button{flex:0 0 auto}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.75rem;margin:0 0 1rem}
.stat{background:#fff;border:1px solid #d0d4db;border-radius:12px;padding:.75rem 1rem;text-decoration:none;color:inherit;display:block}
.stat strong{display:block;font-size:1.6rem;line-height:1.2;font-variant-numeric:tabular-nums}
.stat span{color:#4b5260;font-size:.9rem}
a.stat:hover{border-color:#1d4ed8}
.flag{display:inline-block;margin-top:.2rem;padding:0 .45rem;border-radius:6px;background:#fee2e2;color:#7f1d1d;border:1px solid #b91c1c;font-size:.8rem;font-weight:700;white-space:nowrap}
.flag.wrap{white-space:normal;overflow-wrap:anywhere}
.tag{display:inline-block;margin-top:.2rem;padding:0 .45rem;border-radius:6px;background:#e0e7ff;color:#1e3a8a;border:1px solid #3730a3;font-size:.8rem;font-weight:700;white-space:nowrap}
tr.mismatch td{background:#fff7ed}
.path{overflow-wrap:anywhere;word-break:break-all}
td.desc{min-width:10rem;max-width:24rem}
.table-wrap td{overflow-wrap:anywhere}
td.path{min-width:12rem}
pre.code{white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-all;background:#f3f4f6;padding:.5rem .6rem;border-radius:6px;margin:.35rem 0 .5rem;max-height:22rem;overflow:auto;font-size:.85rem}
details>summary{cursor:pointer;min-height:32px}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}
.actions form{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}
.actions label{display:flex;flex-direction:column;font-size:.875rem;font-weight:600;gap:.25rem;min-width:0}
.actions input{width:9rem;max-width:100%}
.attempt{border-top:1px solid #e5e7eb;padding:.5rem 0}
.grid2{display:grid;gap:1rem}
@media (min-width:64rem){.grid2{grid-template-columns:1fr 1fr}}
.s2{color:#14532d}.s3{color:#1e3a8a}.s4{color:#78350f}.s5{color:#7f1d1d}
.s4,.s5{font-weight:700}
.empty{color:#4b5260;margin:.5rem 0 1rem}
@media (max-width:48rem){
main{padding:.75rem}
.card{padding:1rem}
table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
table.stack,table.stack tbody,table.stack tr{display:block;width:100%}
table.stack tr{border-top:1px solid #d0d4db;padding:.4rem 0}
table.stack tr:first-child{border-top:0}
table.stack td{display:grid;grid-template-columns:6.5rem minmax(0,1fr);gap:.6rem;border:0;padding:.15rem .6rem;min-width:0;max-width:none;white-space:normal;text-align:left;overflow-wrap:anywhere;font-size:.875rem}
table.stack td::before{content:attr(data-label);font-weight:600;color:#4b5260}
table.stack td>*{min-width:0}
}
`.trim()
