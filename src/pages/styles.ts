import { ASSET_CODES } from '../domain/assets.js'

/**
 * The pages' only stylesheet, inlined (no CDN, no web fonts). Colours meet WCAG AA contrast on their
 * backgrounds; every control has a visible keyboard focus ring.
 */
export const STYLES = `
*,*::before,*::after{box-sizing:border-box}
html{color-scheme:light;-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#16181d;background:#f3f4f6}
a{color:#1d4ed8}
.banner{background:#ffd60a;color:#000;padding:.5rem 1rem;text-align:center;font-size:.9rem;border-bottom:2px solid #000}
.banner strong{letter-spacing:.08em;margin-right:.35rem}
.banner a{color:#000;font-weight:600;white-space:nowrap}
main{max-width:40rem;margin:0 auto;padding:1rem}
main.wide{max-width:84rem}
.card{background:#fff;border:1px solid #d0d4db;border-radius:12px;padding:1.25rem;margin:0 0 1rem}
h1{font-size:1.3rem;line-height:1.3;margin:0 0 .25rem;overflow-wrap:anywhere}
h2{font-size:1.05rem;margin:0 0 .75rem}
p{margin:0 0 .75rem}
.muted{color:#4b5260}
.amount{font-size:2rem;font-weight:700;line-height:1.2;margin:.25rem 0 .5rem;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.desc{white-space:pre-wrap;overflow-wrap:anywhere}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dt{color:#4b5260}
dd{margin:0;overflow-wrap:anywhere;min-width:0}
fieldset{border:0;padding:0;margin:0 0 1rem;min-width:0}
legend{font-weight:600;padding:0;margin-bottom:.5rem}
.assets{display:grid;grid-template-columns:repeat(auto-fit,minmax(9.5rem,1fr));gap:.5rem}
.asset{display:flex;gap:.6rem;align-items:flex-start;border:1px solid #d0d4db;border-radius:8px;padding:.6rem .7rem;cursor:pointer;min-height:44px}
.asset:has(input:checked){border-color:#1d4ed8;box-shadow:inset 0 0 0 1px #1d4ed8;background:#eff4ff}
.asset input{margin:.2rem 0 0;accent-color:#1d4ed8;width:1.15rem;height:1.15rem;flex:none}
.asset small{display:block;color:#4b5260}
.panel{border-top:1px solid #e5e7eb;padding-top:1rem;margin-top:1rem}
.pay:has(.picker input:checked) .panel{display:none}
${ASSET_CODES.map((code) => `.pay:has(#asset-${code}:checked) #panel-${code}`).join(',')}{display:block}
.panel-body{display:grid;gap:1rem}
@media (min-width:36rem){.panel-body{grid-template-columns:11rem 1fr;align-items:start}}
.qr{display:block;width:100%;max-width:11rem;height:auto;margin:0 auto;border:1px solid #d0d4db;border-radius:6px}
.field{margin:0 0 .75rem}
.field>span{display:block;font-size:.875rem;color:#4b5260}
.copy-row{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}
.value{flex:1 1 12rem;min-width:0;background:#f3f4f6;border-radius:6px;padding:.35rem .5rem;overflow-wrap:anywhere;word-break:break-all}
button,.button{font:inherit;font-weight:600;border-radius:8px;padding:.55rem 1rem;border:2px solid #1d4ed8;background:#1d4ed8;color:#fff;cursor:pointer;min-height:44px;text-decoration:none;display:inline-block;text-align:center;line-height:1.3}
button.secondary{background:#fff;color:#1d4ed8}
button.danger{background:#fff;color:#b91c1c;border-color:#b91c1c}
button.small{padding:.2rem .7rem;min-height:36px;font-size:.875rem}
button:hover,.button:hover{filter:brightness(.92)}
button:disabled{opacity:.6;cursor:progress}
:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
.sandbox{border:2px dashed #a16207;background:#fffbeb}
.controls{display:grid;grid-template-columns:minmax(0,1fr);gap:.6rem}
.other{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end;border:1px solid #e5c97a;border-radius:8px;padding:.6rem}
.other label{flex:1 1 100%;font-size:.875rem}
.other input{flex:1 1 8rem;min-width:0}
input[type=text],input[type=number],select{font:inherit;padding:.45rem .6rem;border:1px solid #6b7280;border-radius:6px;min-height:44px;background:#fff;color:inherit}
.status{display:inline-block;padding:.1rem .6rem;border-radius:999px;font-weight:600;font-size:.875rem;border:1px solid currentColor}
.st-pending{background:#f3f4f6;color:#374151}
.st-unfinalized{background:#fef3c7;color:#78350f}
.st-paid{background:#dcfce7;color:#14532d}
.st-failed{background:#fee2e2;color:#7f1d1d}
.st-expired{background:#e5e7eb;color:#1f2937}
.banner .clock{display:block;font-size:.85rem;margin-top:.15rem}
.confirmations{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.confirmations progress{flex:1 1 8rem;height:.9rem;accent-color:#1d4ed8}
.verifies{margin:.15rem 0 0;padding-left:1rem;font-size:.8rem}
.notify{display:flex;flex-direction:column;gap:.25rem;font-size:.875rem;font-weight:600;min-width:0}
.notify select{width:100%;min-width:0}
.result{text-align:center}
.result .big{font-size:1.6rem;font-weight:700;margin:.25rem 0 .5rem}
.error{color:#b91c1c;font-weight:600}
.vh{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
[hidden]{display:none!important}
.table-wrap{overflow-x:auto;border:1px solid #d0d4db;border-radius:8px;background:#fff;margin:0 0 1rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
caption{text-align:left;padding:.6rem;font-weight:600}
th,td{padding:.5rem .6rem;text-align:left;vertical-align:top;border-top:1px solid #e5e7eb}
th{background:#f9fafb;font-weight:600;white-space:nowrap}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.nowrap,td .status{white-space:nowrap}
td.desc{min-width:14rem;max-width:30rem}
.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end}
.filters label{display:flex;flex-direction:column;font-weight:600;font-size:.875rem;gap:.25rem}
footer{max-width:40rem;margin:0 auto;padding:0 1rem 2rem;font-size:.875rem;color:#4b5260}
`.trim()
