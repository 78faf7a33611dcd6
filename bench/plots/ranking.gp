# Hash-level metrics next to scheme-level time, each relative to sha256-portable (below 1 = faster).
load datadir.'/vars.gp'
set terminal pngcairo size 1300,650 font ",11" noenhanced
set output outdir.'/ranking.png'
set datafile missing 'NaN'
set datafile columnheaders  # the first line names the columns
set title 'Why long-message benchmarks mislead: time relative to sha256-portable (lower is faster)'
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set logscale y
set grid ytics mytics
set ylabel 'relative time (sha256-portable = 1, log scale)'
set xtics rotate by -30
set key top left box opaque
plot datadir.'/ranking.dat' using 2:xtic(1) title '16 KiB throughput (ns/byte)', \
     '' using 3 title '55-byte hash_one', '' using 4 title '55-byte hash_many ×67', \
     '' using 5 title 'LMS sign', '' using 6 title 'LMS verify'
