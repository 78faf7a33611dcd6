# Latency versus tree height h, one panel per Winternitz parameter, one line per backend, log y.
# Run by bench/study.sh:  gnuplot -e "datadir='...'; outdir='...'" latency-vs-h.gp
load datadir.'/vars.gp'
set terminal pngcairo size 1600,1000 font ",11" noenhanced
set datafile missing 'NaN'
set datafile columnheaders  # the first line names the columns
set logscale y
set grid ytics mytics xtics
set key outside right top font ",9"
set xlabel 'tree height h'
set xtics 5
set autoscale xfix
set offsets 0.6, 0.6, 0, 0  # some room left and right of the first and last h
set format y '%.0f'
ops = 'keygen sign verify'
title_of(k) = k == 1 ? 'Key generation (all cores)' : k == 2 ? 'Signing (1 KiB, tree in memory)' : 'Verification (1 KiB)'
do for [k=1:3] {
  op = word(ops, k)
  set output sprintf('%s/latency-vs-h-%s.png', outdir, op)
  set multiplot layout 2,2 title sprintf('%s versus h, L = 1 (median, log scale)', title_of(k)) font ",14"
  do for [j=1:words(ws)] {
    w = word(ws, j)
    file = sprintf('%s/%s-w%s.dat', datadir, op, w)
    set title sprintf('w = %s', w)
    set ylabel 'time per operation (µs, log scale)'
    plot for [i=2:nbackends+1] file using 1:i with linespoints lw 2 pt (i % 7 + 1) title columnheader(i)
  }
  unset multiplot
}
