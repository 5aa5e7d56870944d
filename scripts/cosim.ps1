<#
.SYNOPSIS
  Runs a cosim co-simulation on Windows with one command (the PowerShell twin of cosim.sh).

.DESCRIPTION
  Starts cosim-dynamics and the visual side (cosim-visual, or cosim-recorder with -Recorder)
  over a private named pipe (\\.\pipe\cosim-<random>), forwards Ctrl-C to both, waits for
  both, writes the report with cosim-report and prints where the run folder and the report
  are. The pipe disappears with the processes that opened it: nothing to clean up on disk.

  Needs a Windows build of cosim (the `pipe:NAME` channel). On Linux and macOS use
  scripts/cosim.sh, which uses POSIX FIFOs.

.EXAMPLE
  scripts\cosim.ps1 -Backend kinematic -Fps 20 -Duration 50 -Mode lockstep
.EXAMPLE
  scripts\cosim.ps1 -Recorder -Mode free -Out runs\free-test
#>
[CmdletBinding()]
param(
  [string]$Backend = "robotino",
  [string]$Scene = "",
  [double]$Fps = 20,
  [double]$Duration = 50,
  [ValidateSet("lockstep", "free", "realtime")][string]$Mode = "lockstep",
  [double]$Rate = 1.0,
  [string]$Params = "",
  [string]$Out = "",
  [string]$Channel = "",
  [switch]$Recorder,
  [string]$BuildDir = "",
  [Parameter(ValueFromRemainingArguments = $true)][string[]]$Extra = @()
)
$ErrorActionPreference = "Stop"
$root = Split-Path -Parent $PSScriptRoot
if (-not $BuildDir) { $BuildDir = Join-Path $root "build" }
$bin = Join-Path $BuildDir "bin"
if (-not $Scene) { $Scene = Join-Path $root "scenes\robotino" }

function Find-Exe([string]$name) {
  foreach ($candidate in @((Join-Path $bin "$name.exe"), (Join-Path $bin "Release\$name.exe"))) {
    if (Test-Path $candidate) { return $candidate }
  }
  return $null
}

$dynamicsExe = Find-Exe "cosim-dynamics"
if (-not $dynamicsExe) {
  Write-Error "cosim.ps1: cosim-dynamics.exe not found under $bin; build cosim first (cmake --build $BuildDir)"
  exit 2
}
$peerName = if ($Recorder) { "cosim-recorder" } else { "cosim-visual" }
$peerExe = Find-Exe $peerName
if (-not $peerExe -and -not $Recorder) {
  $peerExe = Find-Exe "cosim-recorder"
  if ($peerExe) { Write-Host "cosim.ps1: cosim-visual is not built; the visual side is the recorder stub (no graphics)" }
}
if (-not $peerExe) { Write-Error "cosim.ps1: $peerName.exe not found under $bin"; exit 2 }

if (-not $Out) { $Out = Join-Path $root ("runs\" + (Get-Date).ToUniversalTime().ToString("yyyyMMddTHHmmssZ") + "-$Backend") }
$pipe = if ($Channel) { $Channel } else { "pipe:cosim-" + [guid]::NewGuid().ToString("N").Substring(0, 12) }

$dynArgs = @("--backend", $Backend, "--scene", "`"$Scene`"", "--fps", $Fps, "--duration", $Duration,
             "--mode", $Mode, "--rate", $Rate, "--channel", $pipe, "--out", "`"$Out`"")
if ($Params) { $dynArgs += @("--params", "`"$Params`"") }
$dynArgs += $Extra
$peerArgs = @("--channel", $pipe, "--scene", "`"$Scene`"", "--out", "`"$Out`"")

$dynamics = Start-Process -FilePath $dynamicsExe -ArgumentList $dynArgs -NoNewWindow -PassThru
$peer = Start-Process -FilePath $peerExe -ArgumentList $peerArgs -NoNewWindow -PassThru

# Ctrl-C reaches both console children through the shared console; we only make sure
# that we wait for them to finish their clean shutdown instead of leaving at once.
[Console]::TreatControlCAsInput = $false
try {
  $dynamics.WaitForExit()
  $peer.WaitForExit()
} finally {
  foreach ($p in @($dynamics, $peer)) {
    if (-not $p.HasExited) {
      # Give each a moment for its own clean shutdown, then stop it.
      if (-not $p.WaitForExit(5000)) { Stop-Process -Id $p.Id -Force -ErrorAction SilentlyContinue }
    }
  }
}

$status = 0
foreach ($p in @($dynamics, $peer)) {
  if ($p.ExitCode -ne 0 -and $status -eq 0) { $status = $p.ExitCode }
}
$reportExe = Find-Exe "cosim-report"
if ((Test-Path (Join-Path $Out "run.json")) -and $reportExe) {
  & $reportExe $Out
  if ($LASTEXITCODE -ne 0) { Write-Host "cosim.ps1: no report (cosim-report failed)" }
}
Write-Host "cosim.ps1: run folder: $Out"
if (Test-Path (Join-Path $Out "report.md")) { Write-Host "cosim.ps1: report: $(Join-Path $Out 'report.md')" }
exit $status
