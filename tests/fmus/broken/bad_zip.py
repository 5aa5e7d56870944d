"""Writes an FMU whose archive holds an entry named "../evil" beside its modelDescription.xml:
bad_zip.py <modelDescription.xml> <out.fmu>. Python's zipfile writes a ZipInfo's name as given
(it only tidies names when extracting). A host program, so the Windows cross build makes the
same archive without running anything under Wine."""
import sys
import zipfile

model_description, out = sys.argv[1:3]
with zipfile.ZipFile(out, "w") as archive:
    archive.write(model_description, "modelDescription.xml")
    archive.writestr(zipfile.ZipInfo("../evil"), b"evil\n")
