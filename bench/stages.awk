# stages.awk — a run's --steps-csv in, one line out: the median over the
# steps of every *_s column, in ms, as "name=value" pairs (the "_s" dropped),
# and after step the sum of the steps as "sum=value".  Used by
# bench/measure-scene.sh and bench/measure-threads.sh.
BEGIN { FS = "," }
NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /_s$/) { c[++n] = i; h[n] = substr($i, 1, length($i) - 2) }; next }
{ m++; for (k = 1; k <= n; k++) v[k, m] = $c[k] }
END {
  for (k = 1; k <= n; k++) {
    for (i = 1; i <= m; i++) a[i] = v[k, i]
    for (i = 2; i <= m; i++) { x = a[i]; j = i - 1; while (j > 0 && a[j] > x) { a[j + 1] = a[j]; j-- }; a[j + 1] = x }
    med = m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    printf "%s=%.2f ", h[k], 1000 * med
    if (h[k] == "step") { s = 0; for (i = 1; i <= m; i++) s += a[i]; printf "sum=%.1f ", 1000 * s }
  }
  printf "\n"
}
