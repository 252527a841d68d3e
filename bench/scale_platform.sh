# Sourced by bench/scale.sh and bench/scale_rerun.sh.
# scale_platform <file> <ranks> <topology> <parameters> [bandwidth] [latency]
# writes a SimGrid cluster of <ranks> hosts as the bundled platforms are
# (12.5 GBps and 1 us links unless given), TORUS or FAT_TREE.
scale_platform() {
  local Bw=${5:-12.5GBps} Lat=${6:-1us}
  cat >"$1" <<EOX
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="node-" radical="0-$(($2 - 1))" suffix=""
           speed="1Gf" bw="$Bw" lat="$Lat"
           loopback_bw="$Bw" loopback_lat="0us"
           topology="$3" topo_parameters="$4"/>
</platform>
EOX
}
