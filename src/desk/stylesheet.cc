// /desk.css: the one stylesheet, system fonts only, readable at phone width.
#include "desk/desk.h"

namespace dw::desk {

Page Stylesheet() {
  Page p;
  p.content_type = "text/css; charset=utf-8";
  p.body = R"CSS(:root{color-scheme:light}
*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111;background:#fafafa}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center;padding:.6rem 1rem;background:#1b2a4a}
header.top a{color:#fff;text-decoration:none}
header.top a.brand{font-weight:700}
header.top nav a{margin-right:1rem;text-decoration:underline}
main{max-width:1200px;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0;overflow-wrap:anywhere}
h2{font-size:1.2rem;margin-top:1.8rem;border-bottom:1px solid #ccc}
h3{font-size:1.05rem}
a{color:#0b4cc2}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border:1px solid #ccc;padding:.35rem .5rem;text-align:left;vertical-align:top;overflow-wrap:break-word}
td a{overflow-wrap:anywhere}
th{background:#eef1f6}
caption{text-align:left;font-weight:600;padding:.3rem 0}
.scroll{overflow-x:auto;max-width:100%}
.picture svg{display:block;max-width:none;background:#fff}
.small{font-size:.85rem;color:#333}
.nowrap{white-space:nowrap}
.sev{display:inline-block;white-space:nowrap;padding:.05rem .45rem;border-radius:.3rem;font-weight:700;color:#fff}
.sev1{background:#a11111}.sev2{background:#8a4b00}.sev3{background:#44546a}
.deadline{color:#a11111}
tr.cf td{background:#fdecec}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.5rem 0}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.message{background:#fff6d6;border:1px solid #c9a400;padding:.5rem}
.banner{padding:.5rem;border:1px solid}
.banner.good{background:#e6f4e6;border-color:#2b6e2b}
.banner.bad{background:#fde4e4;border-color:#9b1c1c}
.label{font-weight:600;margin:.4rem 0 .1rem}
.reading p,.reading li{overflow-wrap:anywhere}
.muted{color:#333}
ol.causes>li{margin-bottom:1rem}
ul.evidence code,ul.counter code{white-space:pre-wrap;overflow-wrap:anywhere}
pre{background:#fff;border:1px solid #ccc;padding:.5rem;overflow-x:auto;font-size:.85rem}
pre.diff span{display:block;white-space:pre}
pre.diff .add{background:#e3f6e3;color:#0c4a0c}
pre.diff .del{background:#fbe3e3;color:#7d1010}
pre.diff .hunk{color:#1d3d8c;background:#eef1fb}
pre.diff .file{font-weight:700}
article.proposal{background:#fff;border:1px solid #ccc;padding:.5rem 1rem;margin:1rem 0}
form.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end;margin:.5rem 0 1rem}
form.filters label{display:flex;flex-direction:column;font-size:.9rem}
input,select,button,textarea{font:inherit;padding:.3rem}
button{background:#1b2a4a;color:#fff;border:0;border-radius:.3rem;padding:.4rem .9rem}
code.hash{overflow-wrap:anywhere}
@media (max-width:640px){main{padding:.5rem}h1{font-size:1.15rem}dl.facts{grid-template-columns:1fr}dl.facts dt{margin-top:.4rem}th,td{padding:.3rem}}
)CSS";
  return p;
}

}  // namespace dw::desk
