<#
.SYNOPSIS
  Runs a cosim co-simulation on Windows with one command: the PowerShell twin of cosim.sh,
  a thin wrapper over the cosim launcher (build\bin\cosim.exe).

.DESCRIPTION
  cosim.exe starts cosim-dynamics and the visual side (cosim-visual, or cosim-recorder with
  --recorder) over a private named pipe, passes Ctrl-C on to both, waits for both, writes the
  report with cosim-report and prints where the run folder and the report are: the same
  program, and so the same logic, as on Linux. Every argument goes to cosim.exe unchanged
  (`scripts\cosim.ps1 --help` lists them); anything after '--' goes on to cosim-dynamics.
  Write that separator quoted, '--': PowerShell takes a bare -- for itself.

  Build first, natively with CMake (scripts/windows/build.sh is the cross build from Linux
  and does not run on Windows), e.g.
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCOSIM_BUILD_VISUAL=OFF
    cmake --build build --config Release
  The build folder is $env:COSIM_BUILD_DIR if set, else build\ in the repository.

.EXAMPLE
  scripts\cosim.ps1 --backend kinematic --fps 20 --duration 50 --mode lockstep
.EXAMPLE
  scripts\cosim.ps1 --recorder --mode free --out runs\free-test
.EXAMPLE
  scripts\cosim.ps1 --recorder '--' --report-timeout 30
#>
$ErrorActionPreference = "Stop"
$root = Split-Path -Parent $PSScriptRoot
$buildDir = if ($env:COSIM_BUILD_DIR) { $env:COSIM_BUILD_DIR } else { Join-Path $root "build" }

# Single-configuration generators (Ninja) put it in bin\, Visual Studio in bin\<config>\.
$cosim = $null
foreach ($candidate in @((Join-Path $buildDir "bin\cosim.exe"), (Join-Path $buildDir "bin\Release\cosim.exe"))) {
  if (Test-Path $candidate) { $cosim = $candidate; break }
}
if (-not $cosim) {
  [Console]::Error.WriteLine("cosim.ps1: error: cosim.exe not found under $buildDir\bin; build cosim first (cmake --build $buildDir --config Release)")
  exit 2
}

# The call operator passes each argument as one (PowerShell quotes it for the command
# line); the console's Ctrl-C reaches cosim.exe, which passes it on to both sides.
& $cosim @args
exit $LASTEXITCODE
