# Per-digest CPU dispatch inside LMS: lsh256-simd (dispatch once, lanes), lsh256-serial (dispatch
# once, one at a time), lsh256-naive-dispatch (CPUID before every digest), log y.
set terminal pngcairo size 900,600 font ",11" noenhanced
set output outdir.'/pitfall-dispatch.png'
set datafile missing 'NaN'
set datafile columnheaders  # the first line names the columns
set title 'LSH-256 K-LMS, W4: CPU dispatch once (lanes / one at a time) vs CPUID per digest'
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set logscale y
set grid ytics mytics
set ylabel 'time per operation (µs, log scale)'
set key top left
plot datadir.'/pitfall.dat' using 2:xtic(1) title 'sign', '' using 3 title 'verify'
