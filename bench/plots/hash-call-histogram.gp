# Hash calls per operation by total input length (16-byte I included), log y.
load datadir.'/vars.gp'
set terminal pngcairo size 1100,650 font ",11" noenhanced
set output outdir.'/hash-call-histogram.png'
set datafile missing 'NaN'
set datafile columnheaders  # the first line names the columns
set title 'Hashes per operation by input length ('.profile_title.')'
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set logscale y
set yrange [0.5:*]
set grid ytics
set xlabel 'hash input: total length (bytes, the 16-byte I included) and what it is'
set xtics rotate by -20 font ',9'
set ylabel 'hashes per operation (log scale)'
set key top right
plot datadir.'/profile-hist.dat' using 2:xtic(1) title 'keygen', '' using 3 title 'sign', '' using 4 title 'verify'
