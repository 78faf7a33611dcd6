# K-XMSS / K-LMS on identical LSH-256 code: time ratio (CPU medians, many-message and one-message
# series), hash-call ratio and block ratio per operation and Winternitz setting; the paper's
# 3.3-3.9x band as two dashed lines. Data: plot-data/xmss-ratio.dat (bench/study/report_xmss.pl).
set terminal pngcairo size 1000,600 font ",11" noenhanced
set output outdir.'/xmss-vs-lms.png'
set datafile missing 'NaN'
set datafile columnheaders
set title 'K-XMSS / K-LMS, identical LSH-256 code (LMS W = XMSS log2 w)'
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set grid ytics
set yrange [0:*]
set ylabel 'XMSS / LMS'
set xtics rotate by -30
set key top left
set arrow 1 from graph 0, first 3.3 to graph 1, first 3.3 nohead dt 2 lw 2 lc rgb '#aa0000'
set arrow 2 from graph 0, first 3.9 to graph 1, first 3.9 nohead dt 2 lw 2 lc rgb '#aa0000'
set label 1 "paper: 3.3-3.9x" at graph 0.82, first 4.05 tc rgb '#aa0000'
plot datadir.'/xmss-ratio.dat' using 2:xtic(1) title 'time (lsh256-simd, hash_many)', \
     '' using 5 title 'time (lsh256-serial, one message per call)', \
     '' using 3 title 'hash calls', \
     '' using 4 title 'compression blocks'
