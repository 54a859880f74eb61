/*
 * np_report_html_assets.c - the style sheet and the one script of
 * index.html (np_report_html.c).  The script only sorts, filters and
 * restores that state from the URL fragment: without it every table,
 * chart and run list is already in the page.  It runs under the page's
 * Content-Security-Policy, which allows exactly this script by its
 * SHA-256 and nothing remote.
 *
 * Fragment (so a page state can be linked, and a headless browser test
 * can drive it with --dump-dom):
 *   #sort=TABLE:COL:asc|desc   sort table TABLE by column COL (from 0)
 *   &filter=TABLE:TEXT         show row groups whose text contains TEXT
 *   &dim=TABLE:COL:VALUE       show row groups whose column COL is VALUE
 */
#include "np_report_html.h"

const char np_report_html_css[] =
    "body{font-family:sans-serif;margin:1.5em auto;max-width:80em;"
    "padding:0 1em;color:#111;background:#fff}\n"
    "h1{font-size:1.6em}h2{font-size:1.3em;border-bottom:1px solid #999;"
    "margin-top:2em}h3{font-size:1.1em;margin-top:1.5em}\n"
    "table{border-collapse:collapse;margin:.5em 0 1em;font-size:.85em}\n"
    "th,td{border:1px solid #bbb;padding:.2em .45em;vertical-align:top}\n"
    "td{white-space:nowrap}td.wrap{white-space:normal}\n"
    ".scroll{overflow-x:auto}\n"
    "th{background:#eee;text-align:left}th button{font:inherit;border:0;"
    "background:none;cursor:pointer;padding:0;text-align:left}\n"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    "tr.failed td{background:#fde8e8}td.mark{font-weight:bold}\n"
    ".banner{border:2px solid #a00;background:#fee;padding:.5em;"
    "font-weight:bold}\n.ok{color:#060}.bad{color:#a00}\n"
    "figure{margin:1em 0}figure svg{width:100%;max-width:52em;height:auto}\n"
    "figcaption{font-size:.85em}\n.filters{font-size:.85em;margin:.3em 0}\n"
    "details summary{cursor:pointer}td.runs{background:#fafafa}\n"
    ".foot{font-size:.8em;color:#333}\n";

const char np_report_html_guard_js[] =
    "document.addEventListener('securitypolicyviolation',function(e){"
    "var h=document.documentElement;h.setAttribute('data-csp-violations',"
    "(+h.getAttribute('data-csp-violations')||0)+1);"
    "h.setAttribute('data-csp-blocked',String(e.blockedURI));});";

const char np_report_html_js[] =
    "(function(){\n"
    "'use strict';\n"
    "function cellv(td){var v=td.getAttribute('data-value');"
    "return v===null?td.textContent:v;}\n"
    "function cmp(a,b){var x=parseFloat(a),y=parseFloat(b);"
    "if(!isNaN(x)&&!isNaN(y)&&String(x)!=='NaN')return x-y;"
    "return String(a).localeCompare(String(b));}\n"
    "function sortBy(t,col,dir){var g=[].slice.call(t.tBodies);"
    "g.sort(function(a,b){var c=cmp(cellv(a.rows[0].cells[col]),"
    "cellv(b.rows[0].cells[col]));return dir==='desc'?-c:c;});"
    "g.forEach(function(b){t.appendChild(b);});"
    "t.setAttribute('data-sorted',col+':'+dir);"
    "[].forEach.call(t.tHead.rows[0].cells,function(th,i){"
    "th.setAttribute('aria-sort',i===col?(dir==='desc'?'descending':"
    "'ascending'):'none');});}\n"
    "function apply(t){var text=(t.getAttribute('data-filter-text')||'')"
    ".toLowerCase(),dims=JSON.parse(t.getAttribute('data-filter-dims')||"
    "'{}'),shown=0;[].forEach.call(t.tBodies,function(b){var ok=!text||"
    "b.rows[0].textContent.toLowerCase().indexOf(text)>=0;"
    "Object.keys(dims).forEach(function(c){var v=dims[c];if(v!==''&&"
    "cellv(b.rows[0].cells[+c])!==v)ok=false;});b.hidden=!ok;"
    "if(ok)shown++;});t.setAttribute('data-shown',shown);}\n"
    "function setDim(t,col,v){var d=JSON.parse(t.getAttribute("
    "'data-filter-dims')||'{}');d[col]=v;t.setAttribute('data-filter-dims',"
    "JSON.stringify(d));apply(t);}\n"
    "[].forEach.call(document.querySelectorAll('table.data'),function(t){"
    "[].forEach.call(t.tHead.rows[0].cells,function(th,i){var b="
    "th.querySelector('button');if(!b)return;b.addEventListener('click',"
    "function(){var s=(t.getAttribute('data-sorted')||'').split(':');"
    "sortBy(t,i,s[0]===String(i)&&s[1]==='asc'?'desc':'asc');});});});\n"
    "[].forEach.call(document.querySelectorAll('input[data-filter]'),"
    "function(inp){inp.hidden=false;inp.addEventListener('input',function(){"
    "var t=document.getElementById(inp.getAttribute('data-filter'));"
    "t.setAttribute('data-filter-text',inp.value);apply(t);});});\n"
    "[].forEach.call(document.querySelectorAll('select[data-filter]'),"
    "function(sel){sel.hidden=false;sel.addEventListener('change',"
    "function(){setDim(document.getElementById(sel.getAttribute("
    "'data-filter')),sel.getAttribute('data-col'),sel.value);});});\n"
    "var h=decodeURIComponent(location.hash.replace(/^#/,''));"
    "h.split('&').forEach(function(p){var kv=p.split('=');if(kv.length<2)"
    "return;var a=kv.slice(1).join('=').split(':'),t=document"
    ".getElementById(a[0]);if(!t)return;if(kv[0]==='sort')sortBy(t,+a[1],"
    "a[2]||'asc');else if(kv[0]==='filter'){t.setAttribute("
    "'data-filter-text',a.slice(1).join(':'));apply(t);}else if(kv[0]==="
    "'dim')setDim(t,a[1],a.slice(2).join(':'));});\n"
    "document.body.setAttribute('data-js','ready');\n"
    "})();\n";
